# caret and recipes load lubridate, whose Sys.timezone() call warns ("running command
# 'timedatectl' had status 1") on a machine without systemd and no TZ: the tests run in UTC
# when the session has no time zone set.
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")
