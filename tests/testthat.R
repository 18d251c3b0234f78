library(testthat)
library(bahsic)

test_check("bahsic")
