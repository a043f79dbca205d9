/* SPDX-License-Identifier: GPL-2.0 */
/* Command line -> struct pp_env. No side effects: Check tests call it. */
#ifndef PP_CLI_H
#define PP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PP_MAX_IFACES 64
#define PP_MAX_EXTRA  256

enum pp_backend {
	PP_BACKEND_AUTO,
	PP_BACKEND_KPROBE_MULTI,
	PP_BACKEND_KPROBE,
	PP_BACKEND_FENTRY,
	PP_BACKEND_TRACEPOINT,
};

enum pp_action {
	PP_ACT_TRACE,
	PP_ACT_LIST_PROBES,
	PP_ACT_TEST_PCAP,
	PP_ACT_CHECK,
	PP_ACT_HELP,
	PP_ACT_VERSION,
};

struct pp_env {
	enum pp_action action;
	char *filter; /* malloc()ed; "" matches everything */
	const char *ifaces[PP_MAX_IFACES];
	int nifaces;
	const char *funcs;		  /* --funcs, NULL: search */
	const char *probes[PP_MAX_EXTRA]; /* --probe lines */
	int nprobes;
	const char *stacks[PP_MAX_EXTRA]; /* --stack: probe points whose hops carry a stack */
	int nstacks;
	const char *probe_regex; /* --probe-regex: skb functions in BTF that match */
	bool all_netns;		 /* --all-netns */
	bool all_skb_funcs;	 /* --all-skb-funcs */
	enum pp_backend backend;
	bool json;
	bool summary;		  /* --summary: distinct paths at exit */
	bool packets;		  /* --packets: with --summary, each packet too */
	double interval;	  /* --interval: seconds between summaries, 0: at exit only */
	unsigned long long count; /* 0: no limit */
	double duration;	  /* seconds, 0: no limit */
	double packet_timeout;	  /* seconds */
	unsigned int max_packets; /* skb_map entries */
	unsigned int ring_size;	  /* bytes */
	const char *test_pcap;
	const char *tc_script; /* --tc-script DIR */
	const char *pcapng;    /* --pcapng FILE */
	const char *perfetto;  /* --perfetto FILE */
	unsigned int snaplen;  /* --snaplen: bytes kept per packet in --pcapng, 0: all */
	bool no_follow;	       /* --no-follow: no interface attached after start */
	int verbose;
};

/*
 * Parse ARGV into ENV. Returns 0, or 2 (bad usage) after writing one line to
 * ERR. ENV holds pointers into ARGV; free it with pp_env_free().
 */
int pp_cli_parse(struct pp_env *env, int argc, char **argv, FILE *err);
void pp_env_free(struct pp_env *env);
void pp_cli_usage(FILE *f);
const char *pp_backend_name(enum pp_backend b);

#endif
