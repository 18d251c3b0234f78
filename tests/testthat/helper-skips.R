# Under valgrind (tools/valgrind.sh sets BAHSIC_VALGRIND=true) R runs some 30-50 times slower.
# There the tests whose time goes into other packages -- loading Bioconductor, running limma,
# genefilter, pamr or dHSIC for comparison -- are skipped: valgrind would check those
# packages' code, not ours, and every C routine of bahsic is reached by the other tests.
under_valgrind <- function() identical(Sys.getenv("BAHSIC_VALGRIND"), "true")

# skip_if_not_installed(pkg), and skipped under valgrind
skip_peer <- function(pkg) {
  skip_if(under_valgrind(), paste0("under valgrind: ", pkg, "'s code, not ours"))
  skip_if_not_installed(pkg)
}

# The cases of a randomised or oracle loop: all of them, or the first n under valgrind.
test_cases <- function(cases, n = 2L) {
  if (under_valgrind()) utils::head(cases, n) else cases
}

# Under the sanitizers (tools/asan.sh sets BAHSIC_SANITIZERS=true) R runs a few
# times slower; the statistical checks that repeat a selection many times on
# large data are skipped there, as under valgrind: their C paths run in the
# other tests.
skip_statistical_under_checkers <- function(what) {
  skip_if(under_valgrind(), paste0("under valgrind: ", what))
  skip_if(identical(Sys.getenv("BAHSIC_SANITIZERS"), "true"), paste0("under the sanitizers: ", what))
}
