#' Leukaemia expression data of Golub et al. (1999)
#'
#' The training set of the acute lymphoblastic (ALL) versus acute myeloid (AML)
#' leukaemia study of Golub et al. (1999): 38 bone marrow samples (27 ALL, 11
#' AML) measured on Affymetrix Hu6800 arrays, reduced to 3051 genes. It is
#' shipped so that examples, tests and `inst/scripts/main-job.R` have real
#' microarray data without any suggested package.
#'
#' The values are those of `golub` in the Bioconductor package multtest,
#' preprocessed there as in Dudoit, Fridlyand and Speed (2002):
#' 1. thresholding: intensities floored at 100 and capped at 16000;
#' 2. filtering: genes kept when max / min > 5 and max - min > 500 over the
#'    38 samples (7129 -> 3051 probes);
#' 3. base 10 logarithm;
#' 4. standardisation: each array (sample) scaled to mean 0 and variance 1
#'    across its genes.
#'
#' Here the matrix is transposed to samples x genes, as everywhere in bahsic,
#' the class codes are turned into a factor and the gene names are kept as a
#' data frame. The script that makes the file is `tools/make-data.R` in the
#' package's source repository.
#'
#' @format A list with three components:
#' \describe{
#'   \item{`x`}{numeric matrix, 38 samples x 3051 genes. Row names `S01` to
#'     `S38` number the samples in multtest's column order; column names are
#'     the Affymetrix probe identifiers (unique).}
#'   \item{`y`}{factor of length 38 with levels `"ALL"` (27 samples) and
#'     `"AML"` (11 samples), multtest's `golub.cl` codes 0 and 1.}
#'   \item{`genes`}{data frame with 3051 rows, one per column of `x`, in the
#'     same order: `probe` (the probe identifier, multtest's
#'     `golub.gnames[, 3]`) and `description` (gene description,
#'     `golub.gnames[, 2]`).}
#' }
#'
#' @source Golub, T. R., Slonim, D. K., Tamayo, P., Huard, C., Gaasenbeek, M.,
#'   Mesirov, J. P., Coller, H., Loh, M. L., Downing, J. R., Caligiuri, M. A.,
#'   Bloomfield, C. D. and Lander, E. S. (1999). Molecular classification of
#'   cancer: class discovery and class prediction by gene expression
#'   monitoring. *Science* 286, 531-537.
#'
#'   Taken from `data(golub)` of the Bioconductor package multtest (licence
#'   LGPL), version 2.54.0.
#'
#' @references Dudoit, S., Fridlyand, J. and Speed, T. P. (2002). Comparison
#'   of discrimination methods for the classification of tumors using gene
#'   expression data. *Journal of the American Statistical Association* 97,
#'   77-87.
#'
#' @md
#' @keywords datasets
#' @examples
#' str(golub$x[, 1:5])
#' table(golub$y)
#' head(golub$genes)
"golub"
