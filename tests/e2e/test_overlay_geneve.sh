#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Pod to pod across a two-node Geneve (VNI 42, port 6081) overlay, traced by one
# pktpath in node1: tests/e2e/overlay.sh says what is checked.
# shellcheck source-path=SCRIPTDIR source=overlay.sh
. "$(dirname "$0")/overlay.sh"
ov_run geneve
