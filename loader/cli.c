// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "cli.h"
#include "pktpath.h"

#define PP_DEF_MAX_PACKETS 16384
#define PP_DEF_RING_SIZE   (8u << 20)
#define PP_MAX_SECONDS	   31536000.0 /* a year: longer is a typo */

enum {
	OPT_FUNCS = 256,
	OPT_PROBE,
	OPT_BACKEND,
	OPT_LIST,
	OPT_JSON,
	OPT_DURATION,
	OPT_TIMEOUT,
	OPT_MAX_PACKETS,
	OPT_RING,
	OPT_TEST_PCAP,
	OPT_REGEX,
	OPT_ALL_SKB,
	OPT_ALL_NETNS,
	OPT_CHECK,
	OPT_TC_SCRIPT,
	OPT_STACK,
	OPT_PCAPNG,
	OPT_PERFETTO,
	OPT_SNAPLEN,
	OPT_SUMMARY,
	OPT_INTERVAL,
	OPT_PACKETS,
	OPT_NO_FOLLOW,
};

static const struct option long_opts[] = {
	{"filter", required_argument, NULL, 'f'},
	{"interface", required_argument, NULL, 'i'},
	{"funcs", required_argument, NULL, OPT_FUNCS},
	{"probe", required_argument, NULL, OPT_PROBE},
	{"probe-regex", required_argument, NULL, OPT_REGEX},
	{"stack", required_argument, NULL, OPT_STACK},
	{"all-skb-funcs", no_argument, NULL, OPT_ALL_SKB},
	{"all-netns", no_argument, NULL, OPT_ALL_NETNS},
	{"check", no_argument, NULL, OPT_CHECK},
	{"tc-script", required_argument, NULL, OPT_TC_SCRIPT},
	{"pcapng", required_argument, NULL, OPT_PCAPNG},
	{"perfetto", required_argument, NULL, OPT_PERFETTO},
	{"snaplen", required_argument, NULL, OPT_SNAPLEN},
	{"no-follow", no_argument, NULL, OPT_NO_FOLLOW},
	{"backend", required_argument, NULL, OPT_BACKEND},
	{"list-probes", no_argument, NULL, OPT_LIST},
	{"json", no_argument, NULL, OPT_JSON},
	{"summary", no_argument, NULL, OPT_SUMMARY},
	{"interval", required_argument, NULL, OPT_INTERVAL},
	{"packets", no_argument, NULL, OPT_PACKETS},
	{"count", required_argument, NULL, 'c'},
	{"duration", required_argument, NULL, OPT_DURATION},
	{"packet-timeout", required_argument, NULL, OPT_TIMEOUT},
	{"max-packets", required_argument, NULL, OPT_MAX_PACKETS},
	{"ring-size", required_argument, NULL, OPT_RING},
	{"test-pcap", required_argument, NULL, OPT_TEST_PCAP},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{0},
};

static const char *const backend_names[] = {
	[PP_BACKEND_AUTO] = "auto",
	[PP_BACKEND_KPROBE_MULTI] = "kprobe-multi",
	[PP_BACKEND_KPROBE] = "kprobe",
	[PP_BACKEND_FENTRY] = "fentry",
	[PP_BACKEND_TRACEPOINT] = "tracepoint",
};

const char *pp_backend_name(enum pp_backend b)
{
	return backend_names[b];
}

void pp_cli_usage(FILE *f)
{
	fputs("Usage: pktpath [OPTIONS] [--filter EXPR | EXPR...]\n"
	      "       pktpath report FILE [OPTIONS]   (saved --json output, no root: --help)\n"
	      "Show the path of matching packets through the kernel: every function and\n"
	      "tracepoint of the probe list each packet passed, with namespace, device,\n"
	      "CPU and time, and how its life ended.\n"
	      "\n"
	      "  -f, --filter EXPR        tcpdump filter; also the trailing arguments;\n"
	      "                           empty: every packet; a long \"or\" chain of\n"
	      "                           thousands of terms compiles in seconds\n"
	      "  -i, --interface IFACE    mark packets on IFACE (repeatable; a shell pattern\n"
	      "                           such as 'veth*' takes the Ethernet-like ones that\n"
	      "                           match); default: every Ethernet-like interface of\n"
	      "                           this network namespace, new ones included\n"
	      "      --no-follow          only the interfaces there at start: none attached\n"
	      "                           later, and no capability kept with tcx\n"
	      "      --all-netns          with kprobes, also mark packets that processes of\n"
	      "                           other network namespaces send (default: this one)\n"
	      "      --funcs FILE         probe list (default ./kp_func.list, then the\n"
	      "                           installed one)\n"
	      "      --probe NAME         add a probe point, as a kp_func.list line (repeatable)\n"
	      "      --probe-regex RE     add every kernel function taking an skb whose name\n"
	      "                           matches RE (POSIX extended)\n"
	      "      --all-skb-funcs      add every kernel function taking an skb\n"
	      "      --stack NAME         show the kernel stack at the hops of probe point\n"
	      "                           NAME, as the list names it (repeatable)\n"
	      "      --backend B          auto, kprobe-multi, kprobe, fentry or tracepoint\n"
	      "                           (default auto: the best this kernel has)\n"
	      "      --list-probes        print what would be attached, attach nothing\n"
	      "      --json               one JSON object per packet, then a summary\n"
	      "      --pcapng FILE        also write the packets as marked to FILE (pcapng),\n"
	      "                           each with its path and fate as the packet comment\n"
	      "      --snaplen N          keep N bytes of each packet in --pcapng (1 to 128;\n"
	      "                           default: all the mark copied, up to 128); with\n"
	      "                           --json, also in each line, with its times, for\n"
	      "                           pktpath report's exports\n"
	      "      --perfetto FILE      also write a timeline to FILE (Trace Event Format\n"
	      "                           JSON, for ui.perfetto.dev): a track per packet\n"
	      "      --summary            no packet blocks: at exit, the distinct paths\n"
	      "                           (count, share, latency percentiles per path and\n"
	      "                           per step) and the drops by reason and place\n"
	      "      --interval S         with --summary, also every S seconds (cumulative)\n"
	      "      --packets            with --summary, print each packet too\n"
	      "  -c, --count N            exit after N packets\n"
	      "      --duration S         exit after S seconds\n"
	      "      --packet-timeout S   close a packet whose free was not seen after S\n"
	      "                           seconds; copies join it until then (default 1)\n"
	      "      --max-packets N      packets tracked at once (default 16384)\n"
	      "      --ring-size BYTES    ring buffer size, a power of two (default 8M; K, M)\n"
	      "      --test-pcap FILE     print the numbers of the frames of FILE the filter\n"
	      "                           matches, as tcpdump would; run in the kernel (in\n"
	      "                           user space for frames it will not test-run);\n"
	      "                           trace nothing\n"
	      "      --tc-script DIR      do not attach the classifier: pin it and write\n"
	      "                           DIR/attach.sh and DIR/detach.sh (tc commands)\n"
	      "      --check              report what this kernel offers pktpath; exit 0 if\n"
	      "                           it can trace, 1 if not\n"
	      "  -v, --verbose            more messages (twice: libbpf's too)\n"
	      "  -h, --help               this text\n"
	      "  -V, --version            the version\n"
	      "\n"
	      "Examples:\n"
	      "  pktpath icmp and src 198.18.0.1\n"
	      "  pktpath -i eth0 --json -c 10 'tcp port 443'\n"
	      "  pktpath --backend tracepoint --duration 5 udp\n"
	      "  pktpath --pcapng paths.pcapng --perfetto paths.json -c 100 icmp\n"
	      "  pktpath --summary --interval 10 'udp and dst 198.18.1.2'\n"
	      "  pktpath --list-probes --probe-regex '^tcp_v4_'\n"
	      "  pktpath --check\n"
	      "  pktpath --test-pcap capture.pcap 'tcp[tcpflags] & tcp-syn != 0'\n"
	      "\n"
	      "Exit status: 0 done, 1 failure while tracing, 2 bad usage or a filter past the\n"
	      "verifier's limits (nothing attached). Ctrl-C or SIGTERM before the first\n"
	      "attach ends pktpath at once (status 130 or 143), after it detaches (0).\n",
	      f);
}

/* Digits only: no sign, no space, no suffix, no overflow. */
static int parse_ull(const char *s, unsigned long long min, unsigned long long max,
		     unsigned long long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || *end || *out < min || *out > max)
		return -EINVAL;
	return 0;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || *end || !isfinite(*out) || *out <= 0 || *out > PP_MAX_SECONDS)
		return -EINVAL;
	return 0;
}

/* BYTES with an optional K or M suffix; a power of two, 4 KiB .. 1 GiB. */
static int parse_size(const char *s, unsigned int *out)
{
	unsigned long long v, mult = 1;
	char buf[32];
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == 'K' || buf[n - 1] == 'k' || buf[n - 1] == 'M' || buf[n - 1] == 'm') {
		mult = (buf[n - 1] == 'K' || buf[n - 1] == 'k') ? 1024 : 1024 * 1024;
		buf[n - 1] = 0;
	}
	if (parse_ull(buf, 1, 1ULL << 30, &v) || v * mult > (1ULL << 30) || v * mult < 4096)
		return -EINVAL;
	v *= mult;
	if (v & (v - 1))
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

static int parse_backend(const char *s, enum pp_backend *b)
{
	for (size_t i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++) {
		if (!strcmp(s, backend_names[i])) {
			*b = (enum pp_backend)i;
			return 0;
		}
	}
	return -EINVAL;
}

static char *join_args(int n, char **args)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(args[i]) + 1;
	s = calloc(1, len);
	for (int i = 0; s && i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, args[i]);
	}
	return s;
}

static int bad(FILE *err, const char *fmt, const char *what)
{
	fputs("pktpath: ", err);
	fprintf(err, fmt, what);
	fputs("\n", err);
	return 2;
}

static const char *const mode_opts[] = {
	[PP_ACT_LIST_PROBES] = "--list-probes",
	[PP_ACT_TEST_PCAP] = "--test-pcap",
	[PP_ACT_CHECK] = "--check",
};

/*
 * --list-probes, --test-pcap and --check each do one thing instead of
 * tracing: two of them are an error, not the last one winning. --help and
 * --version win over any.
 */
static int set_mode(struct pp_env *env, enum pp_action act, FILE *err)
{
	if (env->action == PP_ACT_HELP || env->action == PP_ACT_VERSION || env->action == act)
		return 0;
	if (env->action != PP_ACT_TRACE) {
		fprintf(err, "pktpath: %s and %s are different modes: give one of them\n",
			mode_opts[env->action], mode_opts[act]);
		return 2;
	}
	env->action = act;
	return 0;
}

static int add_ptr(const char **arr, int *n, int max, const char *v)
{
	if (*n >= max)
		return -E2BIG;
	arr[(*n)++] = v;
	return 0;
}

static int parse_opt(struct pp_env *env, int opt, const char *arg, FILE *err)
{
	unsigned long long v;

	switch (opt) {
	case 'f':
		free(env->filter);
		env->filter = strdup(arg);
		return env->filter ? 0 : bad(err, "%s", "out of memory");
	case 'i':
		if (add_ptr(env->ifaces, &env->nifaces, PP_MAX_IFACES, arg))
			return bad(err, "more than %s interfaces", "64");
		return 0;
	case OPT_FUNCS:
		env->funcs = arg;
		return 0;
	case OPT_PROBE:
		if (add_ptr(env->probes, &env->nprobes, PP_MAX_EXTRA, arg))
			return bad(err, "more than %s --probe options", "256");
		return 0;
	case OPT_STACK:
		if (add_ptr(env->stacks, &env->nstacks, PP_MAX_EXTRA, arg))
			return bad(err, "more than %s --stack options", "256");
		return 0;
	case OPT_BACKEND:
		if (parse_backend(arg, &env->backend))
			return bad(err,
				   "unknown backend \"%s\" (auto, kprobe-multi, kprobe, fentry, "
				   "tracepoint)",
				   arg);
		return 0;
	case OPT_LIST:
		return set_mode(env, PP_ACT_LIST_PROBES, err);
	case OPT_JSON:
		env->json = true;
		return 0;
	case OPT_SUMMARY:
		env->summary = true;
		return 0;
	case OPT_PACKETS:
		env->packets = true;
		return 0;
	case OPT_INTERVAL:
		if (parse_seconds(arg, &env->interval) || env->interval < 0.1)
			return bad(err, "--interval wants seconds, from 0.1 up to a year: \"%s\"",
				   arg);
		return 0;
	case 'c':
		if (parse_ull(arg, 1, 1ULL << 62, &v))
			return bad(err, "-c wants a whole number of packets, 1 or more: \"%s\"",
				   arg);
		env->count = v;
		return 0;
	case OPT_DURATION:
		if (parse_seconds(arg, &env->duration))
			return bad(err, "--duration wants seconds, above 0, up to a year: \"%s\"",
				   arg);
		return 0;
	case OPT_TIMEOUT:
		if (parse_seconds(arg, &env->packet_timeout) || env->packet_timeout > 3600)
			return bad(err,
				   "--packet-timeout wants seconds, above 0, up to 3600: \"%s\"",
				   arg);
		return 0;
	case OPT_MAX_PACKETS:
		if (parse_ull(arg, 1, 1 << 22, &v))
			return bad(err, "--max-packets wants 1 to 4194304: \"%s\"", arg);
		env->max_packets = (unsigned int)v;
		return 0;
	case OPT_RING:
		if (parse_size(arg, &env->ring_size))
			return bad(err, "--ring-size wants a power of two from 4K to 1024M: \"%s\"",
				   arg);
		return 0;
	case OPT_REGEX:
		env->probe_regex = arg;
		return 0;
	case OPT_ALL_SKB:
		env->all_skb_funcs = true;
		return 0;
	case OPT_ALL_NETNS:
		env->all_netns = true;
		return 0;
	case OPT_TC_SCRIPT:
		env->tc_script = arg;
		return 0;
	case OPT_PCAPNG:
		env->pcapng = arg;
		return 0;
	case OPT_PERFETTO:
		env->perfetto = arg;
		return 0;
	case OPT_SNAPLEN:
		if (parse_ull(arg, 1, PP_HDR_BYTES, &v))
			return bad(err,
				   "--snaplen wants 1 to 128 (pktpath copies the first 128 bytes "
				   "of a packet when it marks it): \"%s\"",
				   arg);
		env->snaplen = (unsigned int)v;
		return 0;
	case OPT_NO_FOLLOW:
		env->no_follow = true;
		return 0;
	case OPT_CHECK:
		return set_mode(env, PP_ACT_CHECK, err);
	case OPT_TEST_PCAP:
		env->test_pcap = arg;
		return set_mode(env, PP_ACT_TEST_PCAP, err);
	case 'v':
		env->verbose++;
		return 0;
	case 'h':
		env->action = PP_ACT_HELP;
		return 0;
	case 'V':
		env->action = PP_ACT_VERSION;
		return 0;
	}
	return bad(err, "%s", "unknown option (see --help)");
}

static int check_conflicts(const struct pp_env *env, FILE *err)
{
	if (env->action == PP_ACT_TEST_PCAP && (env->count || env->duration || env->nifaces))
		return bad(err, "%s",
			   "--test-pcap traces nothing: -c, --duration and -i do not apply");
	if (env->tc_script && env->action != PP_ACT_TRACE)
		return bad(err, "%s",
			   "--tc-script is for tracing: not with --test-pcap, --list-probes "
			   "or --check");
	if ((env->pcapng || env->perfetto) && env->action != PP_ACT_TRACE)
		return bad(err, "%s",
			   "--pcapng and --perfetto are for tracing: not with --test-pcap, "
			   "--list-probes or --check");
	if (env->snaplen && !env->pcapng && !env->json)
		return bad(err, "%s", "--snaplen is for --pcapng or --json");
	if (env->pcapng && env->perfetto && !strcmp(env->pcapng, env->perfetto))
		return bad(err, "%s", "--pcapng and --perfetto need two different files");
	if ((env->interval || env->packets) && !env->summary)
		return bad(err, "%s", "--interval and --packets go with --summary");
	if (env->summary && (env->action == PP_ACT_TEST_PCAP || env->action == PP_ACT_LIST_PROBES ||
			     env->action == PP_ACT_CHECK))
		return bad(
			err, "%s",
			"--summary is for tracing: not with --test-pcap, --list-probes or --check");
	if (env->action == PP_ACT_LIST_PROBES && (env->count || env->duration))
		return bad(err, "%s",
			   "--list-probes attaches nothing: -c and --duration do not apply");
	return 0;
}

int pp_cli_parse(struct pp_env *env, int argc, char **argv, FILE *err)
{
	bool have_filter = false;
	int opt, ret;

	memset(env, 0, sizeof(*env));
	env->packet_timeout = 1.0;
	env->max_packets = PP_DEF_MAX_PACKETS;
	env->ring_size = PP_DEF_RING_SIZE;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+f:i:c:vhV", long_opts, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return bad(err, "bad option \"%s\" (see --help)", argv[optind - 1]);
		have_filter |= opt == 'f';
		ret = parse_opt(env, opt, optarg, err);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		if (have_filter)
			return bad(err, "%s",
				   "give the filter either with --filter or as arguments");
		env->filter = join_args(argc - optind, argv + optind);
	} else if (!env->filter) {
		env->filter = strdup("");
	}
	if (!env->filter)
		return bad(err, "%s", "out of memory");
	return check_conflicts(env, err);
}

void pp_env_free(struct pp_env *env)
{
	free(env->filter);
	env->filter = NULL;
}
