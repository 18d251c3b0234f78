#' @param covariates the variables to adjust for (batch, array, sex, age): a
#'   one-sided formula such as `~ batch + age`, evaluated in the samples'
#'   annotation (the sample data of a Bioconductor object, the `data` of a
#'   formula call, or `data`) or the names of its columns, or a data frame,
#'   matrix, factor or numeric
#'   vector with one row per sample. NULL (the default): none. See [design].
#' @param block the pair, patient or repeated-measures unit of each sample (a
#'   factor or vector, or the name of a column of the samples' annotation), as
#'   limma's `block`. NULL (the default): the samples are independent. See [design].
