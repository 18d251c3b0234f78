#' @param data a data frame of the samples' annotation, one row per sample, in
#'   which a `covariates` formula (and a `block` given by name) is evaluated.
