# The default number of threads follows the machine's load at each call
# (?threads), and a result records the threads it ran on: two calls of a test
# compared with expect_identical() must not see different loads. The suite
# fixes the count once, at every core the session may use (at most 2, CRAN's
# limit), as the default is on an idle machine; test-threads.R and
# test-options.R unset the option where they test the default itself.
options(bahsic.threads = min(2L, bahsic:::max_threads()))
