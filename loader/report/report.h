/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `pktpath report FILE`: the summary and the exports of a live run, made
 * from its saved --json output (this host's or another's), as any user:
 * no BPF, no root. main() hands it argv from "report" on.
 */
#ifndef PP_REPORT_H
#define PP_REPORT_H

/* The exit status: 0 done, 1 a file could not be written, 2 bad usage or input. */
int pp_report_main(int argc, char **argv);

#endif /* PP_REPORT_H */
