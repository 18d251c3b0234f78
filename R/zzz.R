# The package's load and unload hooks: the codes of the C tables (bk_codes)
# are read first.

# mlr3 filters (R/adapter-mlr3.R): registered in mlr3filters' dictionary now
# if mlr3filters is loaded, and by a hook whenever it is loaded later (again
# after an unload, too). Neither path loads mlr3filters, and nothing here may
# fail the loading of bahsic.
.onLoad <- function(libname, pkgname) {
  # the codes that cross .Call, from the C tables (R/codes.R)
  load_codes()
  # the process that loaded the package: a forked child differs (R/threads.R)
  cores_cache$pid <- Sys.getpid()
  tryCatch({
    if (isNamespaceLoaded("mlr3filters")) mlr3_register()
    mlr3_remove_hook(pkgname)
    setHook(mlr3_hook_event(), mlr3_hook(pkgname), action = "append")
  }, error = function(e) NULL)
  invisible()
}

.onUnload <- function(libpath) {
  tryCatch({
    mlr3_unregister()
    mlr3_remove_hook("bahsic")
  }, error = function(e) NULL)
  invisible()
}
