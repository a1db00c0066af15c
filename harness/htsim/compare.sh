#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# compare.sh: runs harness/htsim/compare.tcl (mrcgen vs UEC htsim, side by side); see its header
# for how to build htsim_uec, and `compare.sh --help` for the options.
exec tclsh "$(dirname "$0")/compare.tcl" "$@"
