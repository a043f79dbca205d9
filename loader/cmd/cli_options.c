// SPDX-License-Identifier: GPL-2.0
/*
 * The options and commands of pktpath and of `pktpath report`, one row
 * each, and both --help texts made from them. Adding an option is a row
 * here, a paragraph in docs/pktpath.8 (OPTIONS, or REPORT for report's) and
 * a word in scripts/pktpath.bash-completion; test_cli.c fails until all
 * three agree.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include "cmd/cli.h"
#include "probes/plan.h"
#include "pktpath.h"

#define PP_MAX_SECONDS 31536000.0 /* a year: longer is a typo */
#define AT(f)	       offsetof(struct pp_env, f)

/* The order is --help's, the man page's and the completion's. */
const struct pp_cli_opt pp_cli_opts[] = {
	{"filter", 'f', "EXPR", PP_OPT_FILTER, AT(filter),
	 .help = "tcpdump filter; also the trailing arguments;\n"
		 "empty: every packet; a long \"or\" chain of\n"
		 "thousands of terms compiles in seconds"},
	{"interface", 'i', "IFACE", PP_OPT_LIST, AT(ifaces), AT(nifaces), .max = PP_MAX_IFACES,
	 .bad = "more than 64 interfaces",
	 .help = "mark packets on IFACE (repeatable; a shell pattern\n"
		 "such as 'veth*' takes those of the default that\n"
		 "match); default: lo and every Ethernet-like\n"
		 "interface of this network namespace, new ones\n"
		 "included"},
	{"no-follow", 0, NULL, PP_OPT_FLAG, AT(no_follow),
	 .help = "only the interfaces there at start: none attached\n"
		 "later; with tcx links only, no capability kept"},
	{"all-netns", 0, NULL, PP_OPT_FLAG, AT(all_netns),
	 .help = "with kprobes, also mark packets that processes of\n"
		 "other network namespaces send (default: this one)"},
	{"netns", 0, "NS", PP_OPT_LIST, AT(netns), AT(nnetns), .max = PP_SCOPE_MAX,
	 .bad = "more than 16 --netns options",
	 .help = "a scope: mark packets only on the interfaces of\n"
		 "network namespace NS (an `ip netns` name, a path\n"
		 "such as /proc/PID/ns/net, or an inode) and record\n"
		 "hops only there; a packet seen outside ends \"left\n"
		 "the scope\" (repeatable; from any namespace)"},
	{"container", 0, "CTR", PP_OPT_LIST, AT(containers), AT(ncontainers), .max = PP_SCOPE_MAX,
	 .bad = "more than 16 --container options",
	 .help = "as --netns, the namespace of container CTR (a\n"
		 "name, an id of 12 or more hex digits, or a pod's\n"
		 "name; podman, docker, containerd, CRI-O); for a\n"
		 "container on the host's network, as --pid of its\n"
		 "first process: its cgroup"},
	{"cgroup", 0, "DIR", PP_OPT_STR, AT(cgroup),
	 .help = "a scope: mark only packets that sockets of the\n"
		 "cgroup v2 directory DIR (or of one below it) send\n"
		 "or are sent, as the filter matches them; the\n"
		 "marks are at TC, so a path starts there. Each\n"
		 "packet names the process of its socket where\n"
		 "found (\"sent by curl (pid N)\")"},
	{"unit", 0, "UNIT", PP_OPT_STR, AT(unit),
	 .help = "as --cgroup, the cgroup of systemd unit UNIT\n"
		 "(nginx, nginx.service, user@1000.service): the\n"
		 "one cgroup v2 directory of that name"},
	{"pid", 0, "PID", PP_OPT_UINT, AT(pid), .min = 1, .max = 4194304,
	 .bad = "--pid wants a process id: \"%s\"",
	 .help = "as --cgroup, the cgroup v2 of process PID (not the\n"
		 "root cgroup: that is every process's)"},
	{"pid-only", 0, NULL, PP_OPT_FLAG, AT(pid_only),
	 .help = "with --pid: the packets of the sockets PID holds\n"
		 "or made alone, not its cgroup's other processes'\n"
		 "(marked as its cgroup's, kept by pktpath)"},
	{"user", 'u', "USER", PP_OPT_STR, AT(user),
	 .help = "run -- COMMAND as USER (a name or uid) and that\n"
		 "user's groups; default: pktpath's user"},
	{"host-name", 0, "NAME", PP_OPT_STR, AT(host_name),
	 .help = "the host name in --json lines (host.name) for\n"
		 "pktpath report; default: this host's name"},
	{"detail", 0, "LEVEL", PP_OPT_STR, AT(detail),
	 .help = "short (default): one step per layer, about a third\n"
		 "of the probes per packet of full; full: every step\n"
		 "of kp_func.list"},
	{"no-inner", 0, NULL, PP_OPT_FLAG, AT(no_inner),
	 .help = "match the filter on the outer headers only; by\n"
		 "default a VXLAN (UDP 4789, 8472), Geneve (6081),\n"
		 "IP-in-IP or GRE frame also matches when its inner\n"
		 "frame does"},
	{"funcs", 0, "FILE", PP_OPT_STR, AT(funcs),
	 .help = "probe list instead of --detail's (kp_func.min.list\n"
		 "or kp_func.list: ./, then the installed one)"},
	{"probe", 0, "NAME", PP_OPT_LIST, AT(probes), AT(nprobes), .max = PP_MAX_EXTRA,
	 .bad = "more than 256 --probe options",
	 .help = "add a probe point, as a kp_func.list line (repeatable)"},
	{"probe-regex", 0, "RE", PP_OPT_STR, AT(probe_regex),
	 .help = "add every kernel function taking an skb whose name\n"
		 "matches RE (POSIX extended)"},
	{"all-skb-funcs", 0, NULL, PP_OPT_FLAG, AT(all_skb_funcs),
	 .help = "add every kernel function taking an skb"},
	{"send-calls", 0, NULL, PP_OPT_FLAG, AT(send_calls),
	 .help = "start a sent packet's path at its sendto(),\n"
		 "sendmsg() or sendmmsg() call (syscall:send); its\n"
		 "tracepoints slow every process's system calls"},
	{"verdicts", 0, NULL, PP_OPT_FLAG, AT(verdicts),
	 .help = "show other BPF programs' verdicts (TC, XDP, those\n"
		 "loaded later too) as hops, and frames XDP drops or\n"
		 "redirects (where to) as packets: an fexit on each\n"
		 "program slows every packet it sees (kernels with BPF\n"
		 "trampolines)"},
	{"stack", 0, "NAME", PP_OPT_LIST, AT(stacks), AT(nstacks), .max = PP_MAX_EXTRA,
	 .bad = "more than 256 --stack options",
	 .help = "show the kernel stack at the hops of probe point\n"
		 "NAME, as the list names it (repeatable)"},
	{"backend", 0, "B", PP_OPT_BACKEND, AT(backend), .bad = "unknown backend \"%s\"",
	 .help = "(default auto: the best this kernel has)"}, /* after the names */
	{"list-probes", 0, NULL, PP_OPT_MODE, .action = PP_ACT_LIST_PROBES,
	 .help = "print what would be attached, attach nothing"},
	{"json", 0, NULL, PP_OPT_FORMAT, AT(format),
	 .help = "one JSON object per packet, then a summary"},
	{"pcapng", 0, "FILE", PP_OPT_STR, AT(exports[PP_EXPORT_PCAPNG]),
	 .help = "also write the packets as marked to FILE (pcapng),\n"
		 "each with its path and fate as the packet comment"},
	{"snaplen", 0, "N", PP_OPT_UINT, AT(snaplen), .min = 1, .max = PP_HDR_BYTES,
	 .bad = "--snaplen wants 1 to 128 (pktpath copies the first 128 bytes of a packet "
		"when it marks it): \"%s\"",
	 .help = "keep N bytes of each packet in --pcapng (1 to 128;\n"
		 "default: all the mark copied, up to 128); with\n"
		 "--json, also in each line, for pktpath report\n"
		 "--pcapng"},
	{"perfetto", 0, "FILE", PP_OPT_STR, AT(exports[PP_EXPORT_PERFETTO]),
	 .help = "also write a timeline to FILE (Trace Event Format\n"
		 "JSON, for ui.perfetto.dev): a track per packet"},
	{"summary", 0, NULL, PP_OPT_FLAG, AT(summary),
	 .help = "no packet blocks: at exit, the distinct paths\n"
		 "(count, share, latency percentiles per path and\n"
		 "per step) and the drops by reason and place"},
	{"interval", 0, "S", PP_OPT_SECONDS, AT(interval), .min = 0.1, .max = PP_MAX_SECONDS,
	 .bad = "--interval wants seconds, from 0.1 up to a year: \"%s\"",
	 .help = "with --summary, also every S seconds (cumulative)"},
	{"packets", 0, NULL, PP_OPT_FLAG, AT(packets),
	 .help = "with --summary or --metrics, print each packet too"},
	{"metrics", 0, "[ADDR:]PORT", PP_OPT_STR, AT(metrics),
	 .help = "serve Prometheus metrics on http://ADDR:PORT/metrics\n"
		 "(and /healthz); PORT alone: every address; no\n"
		 "packet printed unless --packets or --json"},
	{"agent", 0, NULL, PP_OPT_FLAG, AT(agent),
	 .help = "the node agent: count every drop in the kernel by\n"
		 "reason, function, device and namespace; with\n"
		 "--metrics as counters, else a table at exit. Costs\n"
		 "only the drops. With a filter (and --metrics), also\n"
		 "the paths of matching packets, sampled (--max-rate,\n"
		 "default 100 a second)"},
	{"metrics-top", 0, "N", PP_OPT_UINT, AT(metrics_top), .min = 1, .max = 10000,
	 .bad = "--metrics-top wants 1 to 10000: \"%s\"",
	 .help = "with --metrics, series for the N busiest paths\n"
		 "and drop places; the rest summed as \"other\"\n"
		 "(default 100: at most 23 N + 45 series)"},
	{"metrics-idle", 0, "S", PP_OPT_SECONDS, AT(metrics_idle), .max = PP_MAX_SECONDS,
	 .bad = "--metrics-idle wants seconds, above 0, up to a year: \"%s\"",
	 .help = "with --metrics, a path or drop place without a\n"
		 "packet for S seconds loses its series (default 900)"},
	{"count", 'c', "N", PP_OPT_ULL, AT(count), .min = 1, .max = 0x1p62,
	 .bad = "-c wants a whole number of packets, 1 or more: \"%s\"",
	 .help = "exit after N packets"},
	{"duration", 0, "S", PP_OPT_SECONDS, AT(duration), .max = PP_MAX_SECONDS,
	 .bad = "--duration wants seconds, above 0, up to a year: \"%s\"",
	 .help = "exit after S seconds"},
	{"packet-timeout", 0, "S", PP_OPT_SECONDS, AT(packet_timeout), .max = 3600,
	 .bad = "--packet-timeout wants seconds, above 0, up to 3600: \"%s\"",
	 .help = "close a packet whose free was not seen after S\n"
		 "seconds, unless a qdisc holds it; copies join it\n"
		 "until then (default 1)"},
	{"max-rate", 0, "N", PP_OPT_ULL, AT(max_rate), .min = 1, .max = 100000000,
	 .bad = "--max-rate wants paths a second, 1 to 100000000: \"%s\"",
	 .help = "follow about N new packets a second at most: past\n"
		 "it, 1 matching packet in K, K set 4 times a second\n"
		 "(said at exit, pktpath_sample_period with --metrics)"},
	{"cpu-budget", 0, "PCT", PP_OPT_SECONDS, AT(cpu_budget), .min = 0.01, .max = 100,
	 .bad = "--cpu-budget wants a percent of one CPU, 0.01 to 100: \"%s\"",
	 .help = "follow only as many new packets a second as keep\n"
		 "pktpath's own CPU time within PCT% of one CPU,\n"
		 "measured each second (at most --max-rate, if given;\n"
		 "pktpath_path_rate_limit with --metrics)"},
	{"max-packets", 0, "N", PP_OPT_UINT, AT(max_packets), .min = 1, .max = 1 << 22,
	 .bad = "--max-packets wants 1 to 4194304: \"%s\"",
	 .help = "packets tracked at once (default 16384)"},
	{"ring-size", 0, "BYTES", PP_OPT_SIZE, AT(ring_size),
	 .bad = "--ring-size wants a power of two from 4K to 1024M: \"%s\"",
	 .help = "ring buffer size, a power of two (default 8M; K, M)"},
	{"test-pcap", 0, "FILE", PP_OPT_MODE, AT(test_pcap), .action = PP_ACT_TEST_PCAP,
	 .help = "print the numbers of the frames of FILE the filter\n"
		 "matches, as tcpdump would; run in the kernel (in\n"
		 "user space for frames it will not test-run);\n"
		 "trace nothing"},
	{"tc-script", 0, "DIR", PP_OPT_STR, AT(tc_script),
	 .help = "do not attach the classifier: pin it and write\n"
		 "DIR/attach.sh and DIR/detach.sh (tc commands)"},
	{"check", 0, NULL, PP_OPT_MODE, .action = PP_ACT_CHECK,
	 .help = "report what this kernel offers pktpath; exit 0 if\n"
		 "it can trace, 1 if not"},
	{"verbose", 'v', NULL, PP_OPT_COUNT, AT(verbose),
	 .help = "more messages (twice: libbpf's too)"},
	{"help", 'h', NULL, PP_OPT_ACTION, .action = PP_ACT_HELP, .help = "this text"},
	{"version", 'V', NULL, PP_OPT_ACTION, .action = PP_ACT_VERSION, .help = "the version"},
/* pktpath report FILE...: its own rows, in its --help's order. */
#define REPORT .verb = "report"
	{"summary", 0, NULL, PP_OPT_FLAG, AT(summary), REPORT,
	 .help = "the distinct paths and the drops (the default when\n"
		 "no export is asked for)"},
	{"json", 0, NULL, PP_OPT_FORMAT, AT(format), REPORT,
	 .help = "the summary as JSON lines, as pktpath --json prints"},
	{"pcapng", 0, "FILE", PP_OPT_STR, AT(exports[PP_EXPORT_PCAPNG]), REPORT,
	 .help = "write the packets to FILE (pcapng), as --pcapng;\n"
		 "needs a file recorded with --json --snaplen N"},
	{"snaplen", 0, "N", PP_OPT_UINT, AT(snaplen), .min = 1, .max = PP_HDR_BYTES, REPORT,
	 .bad = "--snaplen wants 1 to 128, not \"%s\"",
	 .help = "keep N bytes of each packet in --pcapng (1 to 128)"},
	{"perfetto", 0, "FILE", PP_OPT_STR, AT(exports[PP_EXPORT_PERFETTO]), REPORT,
	 .help = "write a timeline to FILE, as --perfetto"},
	{"window", 0, "S", PP_OPT_SECONDS, AT(window), .max = 3600, REPORT,
	 .bad = "--window wants seconds, above 0, up to 3600: \"%s\"",
	 .help = "several files: parts of one key join if they\n"
		 "start within S seconds (default 1)"},
	{"clock-tolerance", 0, "S", PP_OPT_SECONDS0, AT(tolerance), .max = 3600, REPORT,
	 .bad = "--clock-tolerance wants seconds, from 0, up to 3600: \"%s\"",
	 .help = "several files: flag a part that starts more than\n"
		 "S seconds before the one before it ends (default\n"
		 "0.001)"},
	{"help", 'h', NULL, PP_OPT_ACTION, .action = PP_ACT_HELP, REPORT, .help = "this text"},
#undef REPORT
};
const size_t pp_cli_nopts = sizeof(pp_cli_opts) / sizeof(pp_cli_opts[0]);

const struct pp_cli_verb pp_cli_verbs[] = {
	{"check", "check", NULL},
	{"probes", "list-probes", NULL},
	{"filter test", "test-pcap", "FILE"},
};
const size_t pp_cli_nverbs = sizeof(pp_cli_verbs) / sizeof(pp_cli_verbs[0]);

const char *pp_backend_name(enum pp_backend b)
{
	return pp_backends[b].name;
}

void pp_backend_list(char *buf, size_t len, const char *last_sep)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < PP_BACKEND_COUNT && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       !i			  ? ""
				       : i + 1 < PP_BACKEND_COUNT ? ", "
								  : last_sep,
				       pp_backends[i].name);
}

const struct pp_cli_opt *pp_cli_opt_find(const char *name)
{
	for (size_t i = 0; i < pp_cli_nopts; i++)
		if (!strcmp(pp_cli_opts[i].name, name))
			return &pp_cli_opts[i];
	return NULL;
}

/*
 * HEAD in a 27-column field, then TEXT, its later lines indented as much;
 * a HEAD that fills the field has TEXT start on the next line.
 */
static void usage_entry(FILE *f, const char *head, const char *text)
{
	if (strlen(head) >= 27)
		fprintf(f, "%s\n%27s", head, "");
	else
		fprintf(f, "%-27s", head);
	for (; *text; text++) {
		fputc(*text, f);
		if (*text == '\n')
			fprintf(f, "%27s", "");
	}
	fputc('\n', f);
}

/* The rows of VERB (NULL: pktpath's own), in order. */
static void usage_opts(FILE *f, const char *verb)
{
	char head[64], text[256];

	for (size_t i = 0; i < pp_cli_nopts; i++) {
		const struct pp_cli_opt *o = &pp_cli_opts[i];

		if (!o->verb != !verb || (verb && strcmp(o->verb, verb)))
			continue;

		snprintf(head, sizeof(head), "  %c%c%c --%s%s%s", o->short_name ? '-' : ' ',
			 o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
		if (o->kind == PP_OPT_BACKEND) { /* the names, then the row's words */
			pp_backend_list(text, sizeof(text), " or ");
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "\n%s", o->help);
		}
		usage_entry(f, head, o->kind == PP_OPT_BACKEND ? text : o->help);
	}
}

static void usage_verbs(FILE *f)
{
	char head[64], text[64];

	for (size_t i = 0; i < pp_cli_nverbs; i++) {
		const struct pp_cli_verb *v = &pp_cli_verbs[i];
		const char *m = v->metavar ? v->metavar : "";
		const char *sp = v->metavar ? " " : "";

		snprintf(head, sizeof(head), "  %s%s%s", v->words, sp, m);
		snprintf(text, sizeof(text), "the same as --%s%s%s", v->option, sp, m);
		usage_entry(f, head, text);
	}
}

void pp_cli_usage(FILE *f)
{
	fputs("Usage: pktpath [OPTIONS] [--filter EXPR | EXPR...] [-- COMMAND [ARGS]]\n"
	      "       pktpath [OPTIONS] check | probes | filter test FILE [OPTIONS] [EXPR...]\n"
	      "       pktpath report FILE [OPTIONS]   (saved --json output, no root: --help)\n"
	      "Show the path of matching packets through the kernel: every function and\n"
	      "tracepoint of the probe list each packet passed, with namespace, device,\n"
	      "CPU and time, and how its life ended.\n"
	      "\n",
	      f);
	usage_opts(f, NULL);
	fputs("\nCommands: the first word that is not an option, unless \"--\" comes before\n"
	      "it (then it starts the filter); more options may follow them.\n",
	      f);
	usage_verbs(f);
	fputs("\n"
	      "Examples:\n"
	      "  pktpath icmp and src 198.18.0.1\n"
	      "  pktpath -i eth0 --json -c 10 'tcp port 443'\n"
	      "  pktpath --backend tracepoint --duration 5 udp\n"
	      "  pktpath --pcapng paths.pcapng --perfetto paths.json -c 100 icmp\n"
	      "  pktpath --summary --interval 10 'udp and dst 198.18.1.2'\n"
	      "  pktpath tcp -- curl -s http://198.18.1.2/\n"
	      "  pktpath --agent --metrics 9464\n"
	      "  pktpath --metrics 9464 --backend tracepoint udp\n"
	      "  pktpath probes --probe-regex '^tcp_v4_'\n"
	      "  pktpath check\n"
	      "  pktpath filter test capture.pcap 'tcp[tcpflags] & tcp-syn != 0'\n"
	      "\n"
	      "Exit status: 0 done, 1 failure while tracing, 2 bad usage or a filter past the\n"
	      "verifier's limits (nothing attached). Ctrl-C or SIGTERM before the first\n"
	      "attach ends pktpath at once (status 130 or 143), after it detaches (0).\n"
	      "With -- COMMAND: the command's status (128+N if signal N ended it).\n",
	      f);
}

void pp_cli_report_usage(FILE *f)
{
	fputs("Usage: pktpath report FILE [OPTIONS]\n"
	      "       pktpath report H1.jsonl H2.jsonl... [--json] [--window S]\n"
	      "                      [--clock-tolerance S]\n"
	      "Read FILE, the output of pktpath --json (- for stdin), and print what a live\n"
	      "run prints: the distinct paths and drops (--summary), and the exports. Needs\n"
	      "no privileges. Lines that cannot be read are skipped and named on stderr.\n"
	      "With several files (hosts), join the records of each packet that several\n"
	      "hosts saw, by its packet key (\"key\"), into one path in time order, each\n"
	      "part tagged with its host (\"host\"), and flag clocks that disagree.\n"
	      "\n",
	      f);
	usage_opts(f, "report");
	fputs("\n"
	      "Examples:\n"
	      "  pktpath --json --snaplen 128 -c 1000 udp > run.jsonl   (as root)\n"
	      "  pktpath report run.jsonl\n"
	      "  pktpath report run.jsonl --pcapng run.pcapng --perfetto run.json\n"
	      "  pktpath report node1.jsonl node2.jsonl\n"
	      "\n"
	      "Exit status: 0 done, 1 FILE holds no packet or a file could not be written,\n"
	      "2 bad usage or input.\n",
	      f);
}
