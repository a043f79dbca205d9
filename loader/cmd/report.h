/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `pktpath report FILE`: the summary and the exports of a live run, made
 * from its saved --json output (this host's or another's), as any user:
 * no BPF, no root. Its options are rows of the one option table
 * (cli_options.c): main() hands it the parsed command line.
 */
#ifndef PP_REPORT_H
#define PP_REPORT_H

struct pp_env;

/* The exit status (enum pp_exit): 0 done, 1 a file could not be written, 2 bad input. */
int pp_report_main(const struct pp_env *env);

#endif /* PP_REPORT_H */
