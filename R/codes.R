# The integer codes that cross .Call, mirroring the tables of src/codes.h
# (test-codes.R checks that they agree with what C_codes() reports):
# kernels (a kernel object's $name; "precomputed" is no data kernel but a
# label kernel given as its matrix, for C_ichol), the width policies of the
# Gaussian and Laplace kernels in the selectors (Song et al. 2012,
# section 4.1), the direction of selection (Algorithm 1, backward, or 2,
# forward), the estimator a selection runs on (the approx argument), the
# kernels' properties (kernel_has()) and the entry points that take each
# kernel (kernels_in()).
bk_codes <- list(
  kernel = c(linear = 0L, polynomial = 1L, gaussian = 2L, laplace = 3L,
             inverse_distance = 4L, clinical = 5L, precomputed = 6L),
  policy = c(fixed = 0L, dimension = 1L, optimize = 2L),
  direction = c(backward = 0L, forward = 1L),
  mode = c(exact = 0L, block = 1L, rff = 2L, ichol = 3L),
  kprop = c(distance = 1L, width = 2L, squared = 4L, rff = 8L, length = 16L),
  kernel_props = c(linear = 0L, polynomial = 0L, gaussian = 15L, laplace = 11L,
                   inverse_distance = 17L, clinical = 0L, precomputed = 0L),
  kset = c(data = 1L, select = 2L, randsel = 4L),
  kernel_sets = c(linear = 5L, polynomial = 7L, gaussian = 7L, laplace = 7L,
                  inverse_distance = 7L, clinical = 2L, precomputed = 0L)
)

# The kernels (names) the entry points of a set take: "data" (kernel
# matrices, per-feature scores, incomplete Cholesky, the ridge base),
# "select" (BAHSIC and FOHSIC in C) or "randsel".
kernels_in <- function(set) {
  sets <- bk_codes$kernel_sets
  names(sets)[bitwAnd(sets, bk_codes$kset[[set]]) != 0L]
}

# TRUE if a kernel (object or name) has the property prop, a name of
# bk_codes$kprop: "distance" (a function of ||x - x'||), "width" (its sigma
# is set by the width policies and the median heuristic), "squared" (the
# width multiplies the squared distance), "rff" (random Fourier features
# approximate it). A kernel without a C code (ridge) has none.
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
