// SPDX-License-Identifier: GPL-2.0
/* loader/output/drop_hint.c: the explanation of each drop, and its evidence, from given facts. */
#include <check.h>
#include <errno.h>
#include <string.h>
#include "output/verdict.h"
#include "output/drop_hint.h"
#include "suites.h"

#define NS 4026532616U

static struct pp_pkt_summary udp_pkt(void)
{
	struct pp_pkt_summary s = {.ip_ver = 4, .ip_proto = 17, .has_ports = true};

	strcpy(s.proto, "udp");
	strcpy(s.src, "198.18.0.1");
	strcpy(s.dst, "198.18.1.2");
	s.sport = 40000;
	s.dport = 7003;
	return s;
}

static const char *hint(const struct pp_drop_facts *d)
{
	static char buf[512];
	size_t n = pp_drop_hint(d, buf, sizeof(buf));

	ck_assert_uint_eq(n, strlen(buf));
	return buf;
}

/* A netfilter drop in each hook, told by nf_hook_slow()'s caller. */
START_TEST(test_nf_hooks)
{
	static const struct {
		const char *caller, *words;
	} cases[] = {
		{"ip_rcv", "netfilter's ipv4 prerouting hook"},
		{"ip_local_deliver", "netfilter's ipv4 input hook"},
		{"ip_forward", "netfilter's ipv4 forward hook"},
		{"__ip_local_out", "netfilter's ipv4 output hook"},
		{"ip_output", "netfilter's ipv4 postrouting hook"},
		{"ip6_forward", "netfilter's ipv6 forward hook"},
		{"ip6_input", "netfilter's ipv6 input hook"},
		{"ip_forward.isra.0", "netfilter's ipv4 forward hook"},
		{"nf_hook_slow_list", "netfilter's prerouting hook"},
		{"__netif_receive_skb_core.constprop.0", "netfilter's netdev ingress hook"},
	};
	struct pp_pkt_summary s = udp_pkt();
	struct pp_drop_facts d = {.reason = "NETFILTER_DROP",
				  .func = "nft_do_chain",
				  .nf_caller = true,
				  .pkt = &s,
				  .dev = "r-eth0",
				  .netns = NS};
	char want[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		d.caller = cases[i].caller;
		snprintf(want, sizeof(want),
			 "%s dropped it: an nftables rule or the chain's policy (NETFILTER_DROP at "
			 "nft_do_chain, under nf_hook_slow called by %s, on r-eth0, netns %u)",
			 cases[i].words, cases[i].caller, NS);
		ck_assert_str_eq(hint(&d), want);
	}
	/* Older kernels drop in nf_hook_slow() itself: its caller is the hook's. */
	d.func = "nf_hook_slow";
	d.nf_caller = false;
	d.caller = "ip_forward";
	ck_assert_str_eq(hint(&d),
			 "netfilter's ipv4 forward hook dropped it: a rule or the chain's "
			 "policy (NETFILTER_DROP at nf_hook_slow called by ip_forward, on "
			 "r-eth0, netns 4026532616)");
	d.func = "ipt_do_table";
	d.nf_caller = true;
	ck_assert_ptr_nonnull(strstr(hint(&d), "forward hook dropped it: an iptables rule"));
}
END_TEST

/* No hook is named unless nf_hook_slow()'s own caller is known. */
START_TEST(test_nf_unknown_hook)
{
	struct pp_drop_facts d = {.reason = "NETFILTER_DROP", .func = "nft_do_chain"};

	ck_assert_str_eq(hint(&d), "an nftables rule or the chain's policy dropped it, at a "
				   "netfilter hook pktpath cannot tell (no caller recorded) "
				   "(NETFILTER_DROP at nft_do_chain)");
	/* The dropper's own caller, not nf_hook_slow's: no hook from it. */
	d.caller = "ip_forward";
	ck_assert_ptr_nonnull(strstr(hint(&d), "at a netfilter hook pktpath cannot name ("));
	d.caller = "some_new_function";
	d.nf_caller = true;
	ck_assert_str_eq(hint(&d), "an nftables rule or the chain's policy dropped it, at a "
				   "netfilter hook pktpath cannot name (NETFILTER_DROP at "
				   "nft_do_chain, under nf_hook_slow called by some_new_function)");
	ck_assert_ptr_null(strstr(hint(&d), "ipv4"));
}
END_TEST

/*
 * A kernel without drop reasons (5.10: no name, code 0): nf_hook_slow()
 * frees on NF_DROP only, so its place names the cause; another place does
 * not, and nothing is guessed.
 */
START_TEST(test_no_reason)
{
	struct pp_pkt_summary s = udp_pkt();
	struct pp_drop_facts d = {.func = "nf_hook_slow",
				  .caller = "ip_local_deliver",
				  .nf_caller = true,
				  .pkt = &s,
				  .dev = "b-eth0",
				  .netns = NS};

	ck_assert_str_eq(hint(&d), "netfilter's ipv4 input hook dropped it: a rule or the chain's "
				   "policy (no reason from the kernel, at nf_hook_slow called by "
				   "ip_local_deliver, on b-eth0, netns 4026532616)");
	d.func = "__udp4_lib_rcv";
	d.caller = NULL;
	d.nf_caller = false;
	ck_assert_str_eq(hint(&d), "the kernel gives no reason, and this place drops for more "
				   "than one (no reason from the kernel, at __udp4_lib_rcv on "
				   "b-eth0, netns 4026532616)");
	/* A code the kernel's BTF does not name is not "no reason". */
	d.reason_code = 99;
	ck_assert_ptr_nonnull(strstr(hint(&d), "no explanation known to pktpath for this reason "
					       "(reason 99 at __udp4_lib_rcv"));
}
END_TEST

START_TEST(test_no_socket)
{
	struct pp_pkt_summary s = udp_pkt();
	struct pp_drop_facts d = {.reason = "NO_SOCKET",
				  .func = "__udp4_lib_rcv",
				  .pkt = &s,
				  .dev = "b-eth0",
				  .netns = NS};

	ck_assert_str_eq(hint(&d), "no udp socket is bound to port 7003 of 198.18.1.2 in netns "
				   "4026532616 (NO_SOCKET at __udp4_lib_rcv on b-eth0, netns "
				   "4026532616)");
	d.icmp_sent = true;
	ck_assert_ptr_nonnull(strstr(hint(&d), "in netns 4026532616; an ICMP error went back to "
					       "198.18.0.1 (NO_SOCKET"));
	d.icmp_sent = false;
	memset(&s, 0, sizeof(s));
	s.ip_ver = 4;
	s.has_icmp = s.has_echo = true;
	s.icmp_id = 9326;
	strcpy(s.proto, "icmp");
	strcpy(s.dst, "198.18.0.1");
	d.func = "ping_rcv";
	ck_assert_ptr_nonnull(strstr(hint(&d), "no socket waits for this icmp echo (id 9326) in "
					       "netns 4026532616 (NO_SOCKET at ping_rcv"));
	/* Without the packet's bytes: said, not made up. */
	d.pkt = NULL;
	d.netns = 0;
	ck_assert_str_eq(hint(&d), "no socket wants this IP packet to its destination in netns ? "
				   "(NO_SOCKET at ping_rcv on b-eth0)");
}
END_TEST

/* ip_error(): the ICMP error sent back, or its absence, tells the route's kind. */
START_TEST(test_route_errors)
{
	struct pp_pkt_summary s = udp_pkt();
	struct pp_drop_facts d = {.reason = "NOT_SPECIFIED",
				  .func = "ip_error",
				  .pkt = &s,
				  .dev = "r-eth0",
				  .netns = NS};

	strcpy(s.dst, "198.18.9.1");
	ck_assert_ptr_nonnull(strstr(hint(&d),
				     "the route to 198.18.9.1 in netns 4026532616 is an "
				     "error route: unreachable, prohibit or blackhole ("));
	d.icmp_traced = true;
	ck_assert_ptr_nonnull(
		strstr(hint(&d), "error route: blackhole, as no ICMP error was sent"));
	d.icmp_sent = true;
	ck_assert_ptr_nonnull(strstr(hint(&d), "error route: unreachable or prohibit (an ICMP"));
	d.reason = "IP_INNOROUTES";
	ck_assert_str_eq(hint(&d), "no route to 198.18.9.1 in netns 4026532616 (IP_INNOROUTES at "
				   "ip_error on r-eth0, netns 4026532616)");
	d.reason = "IP_RPFILTER";
	d.func = "ip_rcv_finish_core";
	ck_assert_ptr_nonnull(strstr(hint(&d),
				     "reverse path filter: in netns 4026532616 the "
				     "route back to 198.18.0.1 does not leave by r-eth0"));
	/* NOT_SPECIFIED elsewhere says nothing more than its name and place. */
	d.reason = "NOT_SPECIFIED";
	d.func = "some_func";
	ck_assert_str_eq(hint(&d), "no explanation known to pktpath for this reason (NOT_SPECIFIED "
				   "at some_func on r-eth0, netns 4026532616)");
}
END_TEST

/* A row for one function of a reason, another for the rest. */
/* PKT_TOO_BIG: the MTU of the way out, not the way in (skb->dev, the evidence's). */
START_TEST(test_too_big)
{
	struct pp_pkt_summary s = udp_pkt();
	struct pp_drop_facts d = {.reason = "PKT_TOO_BIG",
				  .func = "ip_forward",
				  .pkt = &s,
				  .dev = "r-eth0",
				  .netns = NS,
				  .len = 1478,
				  .out_mtu = 1400,
				  .out_ifindex = 7,
				  .out_dev = "r-eth1",
				  .icmp_sent = true};

	ck_assert_str_eq(hint(&d), "its 1478 bytes are more than the MTU 1400 of r-eth1, its way "
				   "out, and it may not be fragmented (IPv4 with DF, or IPv6); an "
				   "ICMP error (fragmentation needed, packet too big) went back to "
				   "198.18.0.1 (PKT_TOO_BIG at ip_forward on r-eth0, netns "
				   "4026532616)");
	/* Its name not known (another namespace): its index. */
	d.out_dev = NULL;
	d.icmp_sent = false;
	ck_assert_ptr_nonnull(strstr(hint(&d), "more than the MTU 1400 of its way out (ifindex 7), "
					       "and it may not"));
	/* Nothing of the way out recorded: no number made up. */
	d.out_ifindex = 0;
	d.out_mtu = 0;
	d.len = 0;
	ck_assert_ptr_nonnull(
		strstr(hint(&d), "bigger than the MTU of its way out and it may not"));
}
END_TEST

/* OTHERHOST: a VLAN no device has, where the tagged frame came in; else a MAC address. */
START_TEST(test_otherhost)
{
	struct pp_pkt_summary s = udp_pkt();
	struct pp_drop_facts d = {.reason = "OTHERHOST",
				  .func = "ip_rcv_core",
				  .pkt = &s,
				  .dev = "r-eth0",
				  .netns = NS,
				  .on_mark_dev = true};

	s.nvlan = 1;
	s.vlan = 100;
	ck_assert_str_eq(hint(&d), "a frame for VLAN 100, which no VLAN device on r-eth0 has: the "
				   "kernel takes it as another host's (OTHERHOST at ip_rcv_core on "
				   "r-eth0, netns 4026532616)");
	/* Dropped on another device (a VLAN device took it, untagged): its MAC address. */
	d.on_mark_dev = false;
	d.dev = "r-eth0.100";
	ck_assert_ptr_nonnull(strstr(hint(&d), "not for this host: its destination MAC address is "
					       "another host's (on r-eth0.100)"));
	/* A priority tag (VLAN 0) is no VLAN: the MAC address. */
	d.on_mark_dev = true;
	d.dev = "r-eth0";
	s.vlan = 0;
	ck_assert_ptr_nonnull(strstr(hint(&d), "its destination MAC address is another host's"));
	s.nvlan = 0;
	ck_assert_ptr_nonnull(strstr(hint(&d), "its destination MAC address is another host's"));
}
END_TEST

START_TEST(test_func_rows)
{
	struct pp_drop_facts d = {.reason = "IP_INHDR", .func = "ip_forward", .netns = NS};

	ck_assert_ptr_nonnull(strstr(hint(&d), "its TTL ran out while forwarding in netns"));
	d.func = "ip_rcv_core";
	ck_assert_ptr_nonnull(strstr(hint(&d), "its IP header is invalid"));
	d.reason = "QDISC_DROP";
	d.func = "fq_codel_enqueue";
	d.dev = "eth0";
	ck_assert_str_eq(hint(&d), "the queueing discipline of eth0 dropped it (queue full or its "
				   "policy; qdisc fq_codel): tc -s qdisc show dev eth0 (QDISC_DROP "
				   "at fq_codel_enqueue on eth0, netns 4026532616)");
	d.func = "__dev_xmit_skb";
	ck_assert_ptr_null(strstr(hint(&d), "qdisc __dev"));
}
END_TEST

/* TC and XDP drops: the programs at that hook now, as given, or that there are none. */
START_TEST(test_hook_progs)
{
	struct pp_drop_facts d = {.reason = "TC_INGRESS",
				  .func = "__netif_receive_skb_core",
				  .dev = "eth0",
				  .hook_progs = "cil_from_netdev (id 812, tcx)"};

	ck_assert_str_eq(hint(&d),
			 "a TC filter or action on eth0 ingress dropped it (TC_ACT_SHOT); "
			 "BPF programs there now: cil_from_netdev (id 812, tcx) (TC_INGRESS "
			 "at __netif_receive_skb_core on eth0)");
	d.hook_progs = "";
	ck_assert_ptr_nonnull(strstr(hint(&d), "; no BPF program there now but pktpath's ("));
	d = (struct pp_drop_facts){
		.reason = "NOT_SPECIFIED", .func = "do_xdp_generic", .dev = "v0"};
	ck_assert_str_eq(hint(&d), "an XDP program on v0 (generic mode) dropped it (XDP_DROP or "
				   "XDP_ABORTED) (NOT_SPECIFIED at do_xdp_generic on v0)");
}
END_TEST

/* A verdict hop saw the program that shot it: that one, not the suspects. */
START_TEST(test_judge)
{
	struct pp_drop_facts d = {.reason = "TC_INGRESS",
				  .func = "tcf_classify",
				  .dev = "eth0",
				  .hook_progs = "a (id 1, tcx), b (id 2, tcx)",
				  .judge = "b#2 returned TC_ACT_SHOT"};

	ck_assert_str_eq(hint(&d),
			 "a TC filter or action on eth0 ingress dropped it (TC_ACT_SHOT); "
			 "BPF program b#2 returned TC_ACT_SHOT (TC_INGRESS at "
			 "tcf_classify on eth0)");
}
END_TEST

/* Verdicts in the kernel's words and back; a value without a word, as a number. */
START_TEST(test_verdict_words)
{
	char buf[PP_VERDICT_LEN];
	__u32 code = 0;
	bool xdp = true;

	ck_assert_str_eq(pp_verdict_word((__u32)-1, false, buf), "TC_ACT_UNSPEC");
	ck_assert_str_eq(pp_verdict_word(2, false, buf), "TC_ACT_SHOT");
	ck_assert_str_eq(pp_verdict_word(8, false, buf), "TC_ACT_TRAP");
	ck_assert_str_eq(pp_verdict_word(9, false, buf), "9");
	ck_assert_str_eq(pp_verdict_word((__u32)-7, false, buf), "-7");
	ck_assert_str_eq(pp_verdict_word(1, true, buf), "XDP_DROP");
	ck_assert_str_eq(pp_verdict_word(4, true, buf), "XDP_REDIRECT");
	ck_assert_str_eq(pp_verdict_word(5, true, buf), "XDP_5");
	ck_assert_int_eq(pp_verdict_code("TC_ACT_UNSPEC", &code, &xdp), 0);
	ck_assert(code == (__u32)-1 && !xdp);
	ck_assert_int_eq(pp_verdict_code("TC_ACT_REDIRECT", &code, &xdp), 0);
	ck_assert(code == 7 && !xdp);
	ck_assert_int_eq(pp_verdict_code("-7", &code, &xdp), 0);
	ck_assert(code == (__u32)-7 && !xdp);
	ck_assert_int_eq(pp_verdict_code("XDP_DROP", &code, &xdp), 0);
	ck_assert(code == 1 && xdp);
	ck_assert_int_eq(pp_verdict_code("XDP_5", &code, &xdp), 0);
	ck_assert(code == 5 && xdp);
	ck_assert_int_eq(pp_verdict_code("XDP_", &code, &xdp), -EINVAL);
	ck_assert_int_eq(pp_verdict_code("TC_ACT_MAYBE", &code, &xdp), -EINVAL);
	ck_assert_int_eq(pp_verdict_code("", &code, &xdp), -EINVAL);
	ck_assert(pp_verdict_drops(2, false) && pp_verdict_drops(0, true) &&
		  pp_verdict_drops(1, true));
	ck_assert(!pp_verdict_drops(0, false) && !pp_verdict_drops(2, true));
}
END_TEST

/* Unknown reasons: the name (or number) and place, never a guess. */
START_TEST(test_unknown)
{
	struct pp_drop_facts d = {.reason = "SOME_FUTURE_REASON", .func = "f", .caller = "g"};

	ck_assert_str_eq(hint(&d), "no explanation known to pktpath for this reason "
				   "(SOME_FUTURE_REASON at f called by g)");
	d = (struct pp_drop_facts){.reason_code = 999, .location = 0xffffffff81000010ULL};
	ck_assert_str_eq(hint(&d), "no explanation known to pktpath for this reason (reason 999 at "
				   "0xffffffff81000010)");
}
END_TEST

/* Every row, with every fact known, fills in every field of its text. */
START_TEST(test_every_row)
{
	struct pp_pkt_summary s = udp_pkt();
	struct pp_drop_facts d = {.func = "some_func",
				  .caller = "ip_forward",
				  .nf_caller = true,
				  .pkt = &s,
				  .dev = "r-eth0",
				  .netns = NS};
	const char *name, *func, *h;
	size_t i;

	for (i = 0; (name = pp_drop_hint_reason(i, &func)); i++) {
		d.reason = name;
		d.func = func ? func : "some_func";
		h = hint(&d);
		ck_assert_msg(!strchr(h, '?') && !strchr(h, '{') && !strchr(h, '}'), "%s: %s", name,
			      h);
		ck_assert_msg(!strstr(h, "no explanation"), "%s: %s", name, h);
		ck_assert_ptr_nonnull(strstr(h, name));
	}
	ck_assert_uint_gt(i, 50);
}
END_TEST

/* A short buffer: cut, terminated, the whole length returned. */
START_TEST(test_short_buffer)
{
	struct pp_drop_facts d = {.reason = "NETFILTER_DROP", .func = "nf_hook_slow"};
	char full[256], cut[16];
	size_t n = pp_drop_hint(&d, full, sizeof(full));

	memset(cut, 'x', sizeof(cut));
	ck_assert_uint_eq(pp_drop_hint(&d, cut, sizeof(cut)), n);
	ck_assert_uint_eq(strlen(cut), sizeof(cut) - 1);
	ck_assert(!strncmp(cut, full, sizeof(cut) - 1));
	ck_assert_uint_eq(pp_drop_hint(&d, NULL, 0), n);
}
END_TEST

Suite *drop_hint_suite(void)
{
	Suite *s = suite_create("drop_hint");
	TCase *tc = tcase_create("hints");

	tcase_add_test(tc, test_nf_hooks);
	tcase_add_test(tc, test_nf_unknown_hook);
	tcase_add_test(tc, test_no_reason);
	tcase_add_test(tc, test_no_socket);
	tcase_add_test(tc, test_route_errors);
	tcase_add_test(tc, test_func_rows);
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_otherhost);
	tcase_add_test(tc, test_hook_progs);
	tcase_add_test(tc, test_judge);
	tcase_add_test(tc, test_verdict_words);
	tcase_add_test(tc, test_unknown);
	tcase_add_test(tc, test_every_row);
	tcase_add_test(tc, test_short_buffer);
	suite_add_tcase(s, tc);
	return s;
}
