#!/usr/bin/env bash
# Makes sure `promtool` (Prometheus's checker, Debian's `prometheus` package) is on PATH for the
# metrics test (cli/tests/daemon_metrics.rs runs `promtool check metrics` on a real scrape).
# Installs the package with apt-get when it is missing; the package's server is not left
# running. Exit 0 when promtool is available, 1 when it could not be installed (the caller then
# runs the test without it, and says so).
set -u
command -v promtool >/dev/null 2>&1 && exit 0
[ "$(id -u)" = 0 ] || { echo "ensure-promtool: promtool missing and not root: not installed" >&2; exit 1; }
echo "ensure-promtool: promtool missing, installing Debian's prometheus package with apt-get"
export DEBIAN_FRONTEND=noninteractive
{ apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus >/dev/null; } ||
  { echo "ensure-promtool: apt-get failed" >&2; exit 1; }
# The package may start its server where services can start; the tests do not use it.
pkill -x prometheus 2>/dev/null || true
command -v promtool >/dev/null 2>&1
