# The integer codes that cross .Call, read from the tables of src/codes.h at
# load (.onLoad, R/zzz.R, calls load_codes()): C_codes() gives them as named
# integer vectors, so R holds no copy to drift from C. kernel: the kernels
# (a kernel object's $name; "precomputed" is no data kernel but a label
# kernel given as its matrix, for C_ichol); policy: the width policies of
# the kernels with a width in the selectors (Song et al. 2012, section 4.1);
# direction: Algorithm 1 (backward) or 2 (forward); mode: the estimator a
# selection runs on (the approx argument); kprop and kernel_props: the
# kernels' properties as bits (kernel_has()); kset and kernel_sets: the entry
# points that take each kernel (kernels_in()); spectrum and kernel_spectra:
# the spectral measure each kernel's random features are drawn from
# (kernel_spectrum(), rff_frequencies() in R/approx.R).
bk_codes <- new.env(parent = emptyenv())

load_codes <- function() {
  list2env(.Call(C_codes), envir = bk_codes)
  invisible()
}

# The kernels (names) the entry points of a set take: "data" (kernel
# matrices, per-feature scores, incomplete Cholesky, the ridge base),
# "select" (BAHSIC and FOHSIC in C) or "randsel".
kernels_in <- function(set) {
  sets <- bk_codes$kernel_sets
  names(sets)[bitwAnd(sets, bk_codes$kset[[set]]) != 0L]
}

# The kernels (names) with the property prop (a name of bk_codes$kprop).
kernels_with <- function(prop) {
  props <- bk_codes$kernel_props
  names(props)[bitwAnd(props, bk_codes$kprop[[prop]]) != 0L]
}

# "a Gaussian or Laplace kernel": the kernels with the property prop, for
# messages (bk_kernels_with() in src/codes_call.c writes the same for C's).
kernels_phrase <- function(prop) {
  names <- gsub("_", "-", kernels_with(prop))
  names <- paste0(toupper(substr(names, 1L, 1L)), substring(names, 2L))
  n <- length(names)
  words <- if (n > 1L) paste(paste(names[-n], collapse = ", "), "or", names[n]) else names
  paste(if (grepl("^[AEIOU]", words)) "an" else "a", words, "kernel")
}

# The name of the spectral measure a kernel (object or name) draws its random
# features from (a name of bk_codes$spectrum): "none" for a kernel without
# random features, or without a C code (ridge).
kernel_spectrum <- function(kernel) {
  name <- if (is.character(kernel)) kernel else kernel$name
  spectra <- bk_codes$kernel_spectra
  code <- if (length(name) == 1L && name %in% names(spectra)) {
    spectra[[name]]
  } else {
    bk_codes$spectrum[["none"]]
  }
  names(bk_codes$spectrum)[match(code, bk_codes$spectrum)]
}

# TRUE if a kernel (object or name) has the property prop, a name of
# bk_codes$kprop: "distance" (a function of ||x - x'||), "width" (its sigma
# is set by the width policies and the median heuristic), "squared" (the
# width multiplies the squared distance), "rff" (random Fourier features
# approximate it, drawn from its spectral measure, kernel_spectrum()),
# "length". A kernel without a C code (ridge) has none.
kernel_has <- function(kernel, prop) {
  name <- if (is.character(kernel)) kernel else kernel$name
  props <- bk_codes$kernel_props
  length(name) == 1L && name %in% names(props) &&
    bitwAnd(props[[name]], bk_codes$kprop[[prop]]) != 0L
}

# The "dimension" width policy for s standardised features (Song et al.
# 2012, section 4.1, step 3: E ||x - x'||^2 = 2 s): 1 / (2 s) for a width on
# the squared distance (Gaussian), 1 / sqrt(2 s) on the distance (Laplace).
dimension_width <- function(kernel, s) {
  if (kernel_has(kernel, "squared")) 1 / (2 * s) else 1 / sqrt(2 * s)
}

# The code of a kernel object (by its $name).
kernel_code <- function(kernel) {
  name <- kernel$name
  if (!is.character(name) || length(name) != 1L || !name %in% names(bk_codes$kernel)) {
    stop(sprintf("kernel '%s' has no C code", name), call. = FALSE)
  }
  bk_codes$kernel[[name]]
}

# The code of a width policy ("fixed", "dimension", "optimize").
policy_code <- function(policy) {
  bk_codes$policy[[policy]]
}

# The direction code of a selection method: its row's direction in the
# selector table (R/selector-table.R), backward elimination or forward
# selection.
direction_code <- function(method) {
  bk_codes$direction[[selector_field(method, "direction")]]
}

# The code of the estimator a selection runs on ("exact", "block", "rff",
# "ichol": the name of the resolved approx).
mode_code <- function(mode) {
  bk_codes$mode[[mode]]
}
