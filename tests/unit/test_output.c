// SPDX-License-Identifier: GPL-2.0
/* Text and JSON output of synthetic packets, against exact expected strings. */
#include <check.h>
#include <ctype.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "output/output.h"
#include "output/path_line.h"
#include "suites.h"

#define NS_A 4026531840U
#define NS_B 4026532001U
#define LOC  0xffffffff81a2b3c4ULL
#define CALL 0x1234 /* the caller of the function at LOC, as an offset from it */

static const char *const probe_names[] = {"veth_xmit", "tp:net:netif_receive_skb",
					  "tp:skb:kfree_skb", NULL,
					  "tp:skb:skb_copy_datagram_iovec"};

static const char *reason_name(__u32 reason, void *arg)
{
	(void)arg;
	return reason == 5 ? "NETFILTER_DROP" : NULL;
}

static const char *sym_name(__u64 addr, void *arg)
{
	(void)arg;
	if (addr == LOC + CALL)
		return "ip_forward";
	return addr == LOC ? "nf_hook_slow" : NULL;
}

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC: the samples' first hop, at 1 ms on
 * CLOCK_MONOTONIC, is 2026-11-26 10:22:28.123456 UTC (main.c sets TZ=UTC).
 */
#define REAL_OFF 1795688548122456000LL

/* Output into a string; out() returns it and starts over. */
struct capture {
	char *buf;
	size_t len;
	struct pp_out o;
};

static void cap_open(struct capture *c)
{
	c->o = (struct pp_out){.probe_names = probe_names,
			       .nprobes = 5,
			       .reason_name = reason_name,
			       .sym_name = sym_name,
			       .real_off = REAL_OFF};
	c->o.f = open_memstream(&c->buf, &c->len);
	ck_assert_ptr_nonnull(c->o.f);
}

static const char *out(struct capture *c)
{
	static char text[4096];

	fclose(c->o.f);
	ck_assert_uint_lt(c->len, sizeof(text));
	memcpy(text, c->buf, c->len + 1);
	free(c->buf);
	c->o.f = open_memstream(&c->buf, &c->len);
	return text;
}

static void cap_close(struct capture *c)
{
	fclose(c->o.f);
	free(c->buf);
}

static struct pp_hop mkhop(__u32 type, __u32 probe, __u64 ts, __u32 netns, const char *dev,
			   __u32 ifindex, __u32 cpu)
{
	struct pp_hop h = {.type = type,
			   .probe = probe,
			   .id = 7,
			   .ts = ts,
			   .cpu = cpu,
			   .netns = netns,
			   .ifindex = ifindex,
			   .skb = 0xffff888000007000ULL,
			   .len = 98};

	snprintf(h.ifname, sizeof(h.ifname), "%s", dev);
	h.pid = cpu ? 4321 : 0;
	strcpy(h.comm, cpu ? "ping" : "swapper/0");
	return h;
}

/* Packet bytes written in hex, one header per line, for reading. */
static __u32 unhex(__u8 *out, const char *hex)
{
	__u32 n = 0;
	unsigned int byte;

	for (; hex[0] && hex[1]; hex += 2) {
		ck_assert_int_eq(sscanf(hex, "%2x", &byte), 1);
		out[n++] = byte;
	}
	return n;
}

/* ICMP echo request 198.18.0.1 > 198.18.1.2 id 4242 seq 1 */
static const char icmp_hex[] = "020000000002"
			       "020000000001"
			       "0800"
			       "45000054000140004001"
			       "0000c6120001c6120102"
			       "0800000010920001";

struct sample {
	struct pp_mark mark;
	struct pp_hop hops[5];
	struct pp_packet p;
};

/* Marked at veth-a egress, crosses into another netns, dropped by netfilter. */
static void sample(struct sample *s)
{
	memset(s, 0, sizeof(*s));
	s->hops[0] = mkhop(PP_REC_MARK, PP_PROBE_TC_EGRESS, 1000000, NS_A, "veth-a", 5, 1);
	s->hops[1] = mkhop(PP_REC_HOP, 0, 1001204, NS_A, "veth-a", 5, 1);
	s->hops[2] = mkhop(PP_REC_HOP, 1, 1003000, NS_B, "veth-b", 6, 0);
	s->hops[3] = mkhop(PP_REC_HOP, PP_PROBE_TC_INGRESS, 1003500, NS_B, "veth-b", 6, 0);
	s->hops[4] = mkhop(PP_REC_END, 2, 1012001, NS_B, "veth-b", 6, 0);
	s->hops[4].fate = PP_FATE_DROPPED;
	s->hops[4].reason = 5;
	s->hops[4].location = LOC;
	s->hops[4].caller = CALL;
	s->hops[4].flags = PP_HOP_NF_CALLER;
	s->mark.hop = s->hops[0];
	s->mark.cap_len = unhex(s->mark.data, icmp_hex);
	s->p = (struct pp_packet){.id = 7,
				  .mark = &s->mark,
				  .hops = s->hops,
				  .nhops = 5,
				  .fate = PP_FATE_DROPPED,
				  .reason = 5,
				  .location = LOC};
}

/* Mark lost, 3 hops lost, no free seen; probe 3 has no name. */
static void sample_lost(struct sample *s)
{
	sample(s);
	s->p.mark = NULL;
	s->p.hops = &s->hops[1];
	s->p.nhops = 2;
	s->hops[2].probe = 3;
	s->hops[2].ifname[0] = '\0';
	s->p.fate = PP_FATE_UNSEEN;
	s->p.lost = 3;
}

/*
 * A strict JSON reader, enough to tell that a line parses: objects, arrays,
 * strings with their escapes, numbers, literals. Returns the end or NULL.
 */
static const char *j_value(const char *p);

static const char *j_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

static const char *j_string(const char *p)
{
	int i;

	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL; /* a raw control byte, or the end of the line */
		if (*p != '\\')
			continue;
		if (*++p == 'u') {
			for (i = 1; i <= 4; i++)
				if (!isxdigit((unsigned char)p[i]))
					return NULL;
			p += 4;
		} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
			return NULL;
		}
	}
	return p + 1;
}

static const char *j_number(const char *p)
{
	const char *start;

	if (*p == '-')
		p++;
	if (*p == '0' && isdigit((unsigned char)p[1]))
		return NULL;
	for (start = p; isdigit((unsigned char)*p); p++)
		;
	return p > start ? p : NULL;
}

/* Members of an object (with keys) or elements of an array, up to close. */
static const char *j_items(const char *p, char close, bool keys)
{
	p = j_ws(p);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (keys) {
			p = j_string(j_ws(p));
			if (!p || *(p = j_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = j_value(p);
		if (!p)
			return NULL;
		p = j_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *j_value(const char *p)
{
	p = j_ws(p);
	if (*p == '{')
		return j_items(p + 1, '}', true);
	if (*p == '[')
		return j_items(p + 1, ']', false);
	if (*p == '"')
		return j_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	return j_number(p);
}

/* One JSON value on one line, ending in a newline. */
static bool json_line_ok(const char *s)
{
	const char *end = j_value(s);

	return end && end[0] == '\n' && end[1] == '\0';
}

/* Every line shorter than 100 columns: the output fits a terminal. */
static bool lines_fit(const char *s)
{
	const char *nl;

	for (; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl || nl - s >= 100)
			return false;
	}
	return true;
}

START_TEST(test_json_reader)
{
	ck_assert(json_line_ok("{\"a\":[1,-2,{\"b\":\"\\u00ff\\n\"}],\"c\":true,\"d\":null}\n"));
	ck_assert(json_line_ok("{}\n"));
	ck_assert(!json_line_ok("{\"a\":1,}\n"));
	ck_assert(!json_line_ok("{\"a\":\"\x01\"}\n"));
	ck_assert(!json_line_ok("{\"a\":\"\\x\"}\n"));
	ck_assert(!json_line_ok("{\"a\":01}\n"));
	ck_assert(!json_line_ok("{\"a\":1}"));
	ck_assert(!json_line_ok("{\"a\" 1}\n"));
	ck_assert(!json_line_ok("[1,2\n"));
}
END_TEST

static const char text_dropped[] =
	"#7 10:22:28.123456 len 98 icmp 198.18.0.1 > 198.18.1.2 echo request id 4242 seq 1\n"
	"  (marked at veth-a egress)\n"
	"        0.000    +0.000 4026531840 veth-a            1 tc:egress\n"
	"        1.204    +1.204 4026531840 veth-a            1 veth_xmit\n"
	"        3.000    +1.796 4026532001 veth-b            0 tp:net:netif_receive_skb\n"
	"        3.500    +0.500 4026532001 veth-b            0 tc:ingress\n"
	"       12.001    +8.501 4026532001 veth-b            0 tp:skb:kfree_skb\n"
	"  dropped: NETFILTER_DROP at nf_hook_slow after 12.001 us\n"
	"  why: netfilter's ipv4 forward hook dropped it: a rule or the chain's policy "
	"(NETFILTER_DROP at\n"
	"       nf_hook_slow called by ip_forward, on veth-b, netns 4026532001)\n"
	"\n";

/*
 * The sample's last two hops on a clone (a raw socket's), which joined at
 * tc:ingress and was consumed, while the original was dropped: the packet
 * is consumed, each skb keeps its fate.
 */
#define SKB_COPY 0xffff888000008000ULL

static void sample_copy(struct sample *s, struct pp_skbref skbs[2])
{
	sample(s);
	s->hops[3].type = PP_REC_COPY;
	s->hops[3].skb = SKB_COPY;
	s->hops[3].location = s->hops[0].skb;
	s->hops[4].skb = SKB_COPY;
	s->hops[4].probe = 4; /* the read: ping copies the data out */
	s->hops[4].pid = 4321;
	strcpy(s->hops[4].comm, "ping");
	skbs[0] = (struct pp_skbref){.skb = s->hops[0].skb,
				     .first_ts = s->hops[0].ts,
				     .ended = true,
				     .fate = PP_FATE_DROPPED,
				     .reason = 5,
				     .location = LOC};
	skbs[1] = (struct pp_skbref){.skb = SKB_COPY,
				     .parent = s->hops[0].skb,
				     .first_ts = s->hops[3].ts,
				     .probe = PP_PROBE_TC_INGRESS,
				     .copy = true,
				     .ended = true,
				     .fate = PP_FATE_CONSUMED};
	s->p.skbs = skbs;
	s->p.nskbs = 2;
	s->p.fate = PP_FATE_CONSUMED;
	s->p.reason = 0;
	s->p.location = 0;
}

START_TEST(test_copies)
{
	struct pp_skbref skbs[2];
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	sample_copy(&s, skbs);
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_str_eq(
		t,
		"#7 10:22:28.123456 len 98 icmp 198.18.0.1 > 198.18.1.2 echo request id 4242 seq "
		"1\n"
		"  (marked at veth-a egress)\n"
		"        0.000    +0.000 4026531840 veth-a            1 tc:egress\n"
		"        1.204    +1.204 4026531840 veth-a            1 veth_xmit\n"
		"        3.000    +1.796 4026532001 veth-b            0 tp:net:netif_receive_skb\n"
		"        3.500    +0.500 4026532001 veth-b            0 tc:ingress [copy 1 of 0]\n"
		"       12.001    +8.501 4026532001 veth-b            0 "
		"tp:skb:skb_copy_datagram_iovec [copy 1]\n"
		"  consumed after 12.001 us; read by ping (pid 4321) at 12.001 us\n"
		"    original: dropped: NETFILTER_DROP at nf_hook_slow\n"
		"    copy 1 of 0: consumed; read by ping (pid 4321) at 12.001 us\n"
		"\n");
	ck_assert(lines_fit(t));
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(
		t,
		"\"fate\":{\"kind\":\"consumed\",\"read\":{\"pid\":4321,\"comm\":\"ping\","
		"\"t_ns\":12001}},\"skbs\":["
		"{\"skb\":\"0xffff888000007000\",\"fate\":{\"kind\":\"dropped\","
		"\"reason\":\"NETFILTER_DROP\",\"reason_code\":5,\"func\":\"nf_hook_slow\","
		"\"location\":\"0xffffffff81a2b3c4\"}},"
		"{\"skb\":\"0xffff888000008000\",\"from\":\"0xffff888000007000\",\"from_index\":0,"
		"\"func\":\"tc:ingress\",\"t_ns\":3500,\"fate\":{\"kind\":\"consumed\","
		"\"read\":{\"pid\":4321,\"comm\":\"ping\",\"t_ns\":12001}}}],\"mono_ns\":"));
	ck_assert(json_line_ok(t));
	cap_close(&c);
}
END_TEST

START_TEST(test_text_dropped)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	sample(&s);
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_str_eq(t, text_dropped);
	ck_assert(lines_fit(t));
	cap_close(&c);
}
END_TEST

static size_t count_of(const char *s, const char *w)
{
	size_t n = 0;

	for (; (s = strstr(s, w)); s++)
		n++;
	return n;
}

/* S: a frame on veth-b an XDP program returned VERDICT for, its MARK and END (PP_HOP_FRAME). */
static void frame_sample(struct sample *s, __u32 verdict)
{
	sample(s);
	s->hops[0] = mkhop(PP_REC_MARK, 0, 1000000, NS_B, "veth-b", 6, 0);
	s->hops[0].flags = PP_HOP_VERDICT | PP_HOP_XDP | PP_HOP_FRAME;
	s->hops[0].reason = verdict;
	s->hops[1] = mkhop(PP_REC_END, 0, 1000000, NS_B, "veth-b", 6, 0);
	s->hops[1].flags = PP_HOP_FRAME;
	s->hops[1].fate = PP_FATE_XDP;
	s->mark.hop = s->hops[0];
	s->p.nhops = 2;
	s->p.fate = PP_FATE_XDP;
	s->p.reason = 0;
	s->p.location = 0;
}

/*
 * A frame an XDP program sent back before any skb (PP_HOP_FRAME): one hop
 * line, its verdict (the END repeats it and is left out), and the program
 * named after the fate.
 */
START_TEST(test_text_frame)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	frame_sample(&s, 3); /* XDP_TX */
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_uint_eq(count_of(t, " veth_xmit XDP_TX\n"), 1);
	ck_assert_ptr_nonnull(strstr(t, "(marked at veth-b veth_xmit)\n"));
	ck_assert_ptr_nonnull(strstr(t, "went on past XDP"));
	ck_assert_ptr_nonnull(strstr(t, " (BPF program veth_xmit returned XDP_TX) after 0.000 us"));
	/* Dropped, on a kernel without drop reasons: XDP's hint all the same. */
	s.hops[0].reason = 1; /* XDP_DROP */
	s.mark.hop = s.hops[0];
	s.hops[1].fate = PP_FATE_DROPPED;
	s.p.fate = PP_FATE_DROPPED;
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t, " (BPF program veth_xmit returned XDP_DROP) after"));
	ck_assert_msg(strstr(t, "why: an XDP program on veth-b dropped it; BPF program veth_xmit "
				"returned XDP_DROP"),
		      "%s", t);
	cap_close(&c);
}
END_TEST

/* Interface 7 of NS_B is vr-b: what pktpath's reader would answer. */
static const char *if_name(__u32 netns, __u32 ifindex, char *buf, void *arg)
{
	(void)arg;
	if (netns != NS_B || ifindex != 7)
		return NULL;
	return strcpy(buf, "vr-b");
}

/*
 * A frame its XDP program redirected (PP_HOP_REDIRECT on its END): the
 * verdict line and the fate say where to; a redirect that failed dropped
 * it, and says with what; a target not known by name, by its index.
 */
START_TEST(test_text_frame_redirect)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	c.o.if_name = if_name;
	frame_sample(&s, 4); /* XDP_REDIRECT */
	s.hops[1].flags |= PP_HOP_REDIRECT;
	s.hops[1].out_ifindex = 7;
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_msg(count_of(t, " veth_xmit XDP_REDIRECT to vr-b\n") == 1, "%s", t);
	ck_assert_msg(strstr(t, "(BPF program veth_xmit returned XDP_REDIRECT to vr-b) after"),
		      "%s", t);
	/* Failed: the driver dropped the frame. */
	s.hops[1].redirect_err = -100; /* ENETDOWN */
	s.hops[1].fate = PP_FATE_DROPPED;
	s.p.fate = PP_FATE_DROPPED;
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_msg(strstr(t,
			     "(BPF program veth_xmit returned XDP_REDIRECT to vr-b, which failed: "
			     "ENETDOWN) after"),
		      "%s", t);
	/* Through a map, to a device whose name is not known. */
	s.hops[1].redirect_err = 0;
	s.hops[1].out_ifindex = 9;
	s.hops[1].redirect_map = 12;
	s.hops[1].fate = PP_FATE_XDP;
	s.p.fate = PP_FATE_XDP;
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_msg(count_of(t, " XDP_REDIRECT to ifindex 9 (map id 12)\n") == 1, "%s", t);
	cap_close(&c);
}
END_TEST

/*
 * The headers seen at a TC hop differ from the mark's (NAT): that hop says
 * "now" and gives them in JSON; a hop whose bytes show the mark's flow
 * says nothing.
 */
START_TEST(test_hop_now)
{
	struct pp_hop_bytes b[2];
	struct capture c;
	struct sample s;
	const char *t;

	sample(&s);
	for (int i = 0; i < 2; i++) {
		const struct pp_hop *h = &s.hops[i ? 3 : 1];

		b[i] = (struct pp_hop_bytes){.skb = h->skb, .ts = h->ts, .probe = h->probe};
		b[i].cap_len = s.mark.cap_len;
		memcpy(b[i].data, s.mark.data, s.mark.cap_len);
	}
	memcpy(b[1].data + 26, "\xc6\x12\x09\x09", 4); /* source 198.18.9.9 */
	s.p.bytes = b;
	s.p.nbytes = 2;
	cap_open(&c);
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t, " tc:ingress\n"
					"                                                    now "
					"198.18.9.9 > 198.18.1.2 id 4242\n"));
	ck_assert_uint_eq(count_of(t, " now "), 1);
	ck_assert(lines_fit(t));
	cap_close(&c);
	cap_open(&c);
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert(json_line_ok(t));
	ck_assert_ptr_nonnull(strstr(t, "\"func\":\"tc:ingress\""));
	ck_assert_ptr_nonnull(
		strstr(t, "\"skb\":\"0xffff888000007000\",\"pkt\":{\"proto\":\"icmp\",\"src\":"
			  "\"198.18.9.9\",\"dst\":\"198.18.1.2\""));
	ck_assert_uint_eq(count_of(t, "\"pkt\""), 2); /* the mark's and that hop's */
	cap_close(&c);
}
END_TEST

static void doc_check_line(const char *line);

/*
 * A reply marked by reply_map (PP_HOP_REPLY): the header line names the
 * packet whose rewrite told it, and so does JSON's marked_at, as documented.
 */
START_TEST(test_mark_reply)
{
	struct capture c;
	struct sample s;
	const char *t;

	sample(&s);
	s.mark.hop.flags |= PP_HOP_REPLY;
	s.mark.hop.location = 6;
	cap_open(&c);
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t, "\n  (marked at veth-a egress: reply to #6)\n"));
	ck_assert(lines_fit(t));
	cap_close(&c);
	cap_open(&c);
	c.o.host_name = "node1";
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert(json_line_ok(t));
	ck_assert_ptr_nonnull(
		strstr(t, "\"marked_at\":{\"ifname\":\"veth-a\",\"ifindex\":5,\"dir\":\"egress\","
			  "\"reply_to\":6}"));
	doc_check_line(t);
	cap_close(&c);
}
END_TEST

#define HOP_A                                                                                      \
	"\"netns\":4026531840,\"ifname\":\"veth-a\",\"ifindex\":5,\"cpu\":1,\"pid\":4321,"         \
	"\"comm\":\"ping\",\"len\":98,\"skb\":\"0xffff888000007000\"}"
#define HOP_B                                                                                      \
	"\"netns\":4026532001,\"ifname\":\"veth-b\",\"ifindex\":6,\"cpu\":0,\"pid\":0,"            \
	"\"comm\":\"swapper/0\",\"len\":98,\"skb\":\"0xffff888000007000\"}"

static const char json_dropped[] =
	"{\"id\":7,\"len\":98,"
	"\"pkt\":{\"proto\":\"icmp\",\"src\":\"198.18.0.1\",\"dst\":\"198.18.1.2\",\"ip_proto\":1,"
	"\"icmp_type\":8,\"icmp_code\":0,\"icmp_id\":4242,\"icmp_seq\":1},"
	"\"marked_at\":{\"ifname\":\"veth-a\",\"ifindex\":5,\"dir\":\"egress\"},"
	"\"hops\":[{\"func\":\"tc:egress\",\"t_ns\":0," HOP_A ","
	"{\"func\":\"veth_xmit\",\"t_ns\":1204," HOP_A ","
	"{\"func\":\"tp:net:netif_receive_skb\",\"t_ns\":3000," HOP_B ","
	"{\"func\":\"tc:ingress\",\"t_ns\":3500," HOP_B ","
	"{\"func\":\"tp:skb:kfree_skb\",\"t_ns\":12001," HOP_B "],"
	"\"fate\":{\"kind\":\"dropped\",\"reason\":\"NETFILTER_DROP\",\"reason_code\":5,"
	"\"func\":\"nf_hook_slow\",\"location\":\"0xffffffff81a2b3c4\","
	"\"hint\":\"netfilter's ipv4 forward hook dropped it: a rule or the chain's policy "
	"(NETFILTER_DROP at nf_hook_slow called by ip_forward, on veth-b, netns 4026532001)\"},"
	"\"mono_ns\":1000000,\"real_ns\":1795688548123456000,\"key\":\"be5a56a22d53c9e4\"}\n";

START_TEST(test_json_dropped)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	sample(&s);
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert_str_eq(t, json_dropped);
	ck_assert(json_line_ok(t));
	cap_close(&c);
}
END_TEST

/* ------------------------------------------ the JSON output against docs/json-schema.md */

#define DOC_KEYS 48

/* A table of docs/json-schema.md: its rows' keys in order, and which it says are always there. */
struct doc_table {
	char key[DOC_KEYS][24];
	bool always[DOC_KEYS];
	size_t n;
};

static char *slurp(const char *rel)
{
	char path[512], *text = NULL;
	size_t len = 0;
	FILE *in, *out = open_memstream(&text, &len);
	int c;

	snprintf(path, sizeof(path), "%s/%s", PP_SOURCE_DIR, rel);
	in = fopen(path, "r");
	ck_assert_msg(in, "cannot read %s", path);
	while ((c = fgetc(in)) != EOF)
		fputc(c, out);
	fclose(in);
	fclose(out);
	return text;
}

/* A row's `keys` (its first cell: "| `src`, `dst` | string | always | ..."). */
static void doc_row(const char *row, struct doc_table *t)
{
	const char *end = strchr(row + 1, '|'), *present = strchr(end + 1, '|') + 1;
	const char *a, *b;

	for (a = row; (a = memchr(a, '`', (size_t)(end - a))); a = b + 1) {
		b = memchr(a + 1, '`', (size_t)(end - a - 1));
		ck_assert_ptr_nonnull(b);
		ck_assert_uint_lt(t->n, DOC_KEYS);
		snprintf(t->key[t->n], sizeof(t->key[0]), "%.*s", (int)(b - a - 1), a + 1);
		t->always[t->n++] = !strncmp(present, " always", 7);
	}
}

/* The first "| key | type | present |" table under the heading HEADING. */
static void doc_table(const char *doc, const char *heading, struct doc_table *t)
{
	char line[64];
	const char *p;

	snprintf(line, sizeof(line), "\n%s\n", heading);
	p = strstr(doc, line);
	ck_assert_msg(p, "docs/json-schema.md lacks %s", heading);
	p = strstr(p, "\n| key | type | present |");
	ck_assert_ptr_nonnull(p);
	p = strchr(strchr(p + 1, '\n') + 1, '\n') + 1; /* past the header and its |---| */
	for (t->n = 0; *p == '|'; p = strchr(p, '\n') + 1)
		doc_row(p, t);
}

/* O's keys come in the table's order, each one of its rows, and its "always" ones are all there. */
static void doc_check(json_object *o, const char *doc, const char *heading)
{
	struct doc_table t;
	const char *prev = NULL;
	size_t i, at = 0;

	doc_table(doc, heading, &t);
	json_object_object_foreach(o, k, v)
	{
		(void)v;
		for (i = 0; i < t.n && strcmp(t.key[i], k); i++)
			;
		ck_assert_msg(i < t.n, "%s: \"%s\" is not in docs/json-schema.md's table", heading,
			      k);
		ck_assert_msg(!prev || i > at,
			      "%s: \"%s\" is written after \"%s\", documented before", heading, k,
			      prev);
		at = i;
		prev = k;
	}
	for (i = 0; i < t.n; i++)
		ck_assert_msg(!t.always[i] || json_object_object_get_ex(o, t.key[i], NULL),
			      "%s: \"%s\" is documented as always there", heading, t.key[i]);
}

/* Each object of a packet line against its table: the line's, pkt, marked_at, fate, hops, skbs. */
static void doc_check_line(const char *line)
{
	static const struct {
		const char *key, *heading;
	} objs[] = {{"pkt", "### `pkt`"},
		    {"marked_at", "### `marked_at`"},
		    {"fate", "### `fate`"},
		    {"hops", "### `hops[]`"},
		    {"skbs", "### `skbs[]`"}};
	char *doc = slurp("docs/json-schema.md");
	json_object *top = json_tokener_parse(line), *v, *e;

	ck_assert_ptr_nonnull(top);
	doc_check(top, doc, "## Packet lines");
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		if (!json_object_object_get_ex(top, objs[i].key, &v))
			continue;
		if (!json_object_is_type(v, json_type_array)) {
			doc_check(v, doc, objs[i].heading);
			continue;
		}
		for (size_t k = 0; k < json_object_array_length(v); k++) {
			e = json_object_array_get_idx(v, k);
			doc_check(e, doc, objs[i].heading);
			if (json_object_object_get_ex(e, "fate", &e)) /* an skb's own */
				doc_check(e, doc, "### `fate`");
		}
	}
	json_object_put(top);
	free(doc);
}

/*
 * Keys come in the order docs/json-schema.md's tables give them: the line's,
 * a hop's flags, and an skbs[] entry of a tap's copy, whose "tap" follows its
 * "fate".
 */
START_TEST(test_json_key_order)
{
	struct pp_skbref skbs[2];
	struct capture c;
	struct sample s;

	cap_open(&c);
	c.o.host_name = "node1";
	sample_copy(&s, skbs);
	skbs[1].tap = true;
	s.hops[2].flags |= PP_HOP_NETNS_CARRIED | PP_HOP_GAP | PP_HOP_READ;
	pp_out_json(&c.o, &s.p);
	doc_check_line(out(&c));
	cap_close(&c);
}
END_TEST

/* docs/json-schema.md's first example: the sample's line, as written today, that its tables fit. */
START_TEST(test_json_schema_example)
{
	char *doc = slurp("docs/json-schema.md"), *line, *end;
	struct capture c;
	struct sample s;

	line = strstr(doc, "\n## Packet lines\n");
	ck_assert_ptr_nonnull(line);
	line = strstr(line, "\n```json\n{");
	ck_assert_ptr_nonnull(line);
	line = strchr(line, '{');
	end = strstr(line, "\n```\n");
	ck_assert_ptr_nonnull(end);
	end[1] = '\0';
	cap_open(&c);
	c.o.host_name = "node1";
	c.o.boot_id = "0b1e5d3c-8f6a-4d2e-9c7b-3a5f1e2d4c6b";
	sample(&s);
	pp_out_json(&c.o, &s.p);
	ck_assert_str_eq(line, out(&c));
	doc_check_line(line);
	cap_close(&c);
	free(doc);
}
END_TEST

START_TEST(test_lost)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	sample_lost(&s);
	pp_out_text(&c.o, &s.p);
	ck_assert_str_eq(out(&c),
			 "#7 10:22:28.123457 len 98 (packet bytes unknown)\n"
			 "        0.000    +0.000 4026531840 veth-a            1 veth_xmit\n"
			 "        1.796    +1.796 4026532001 if6               0 probe#3\n"
			 "  end not seen: last seen at probe#3 on if6 after 1.796 us\n"
			 "  (no probe saw its free within the packet timeout)\n"
			 "  the mark record of this packet was lost (ring buffer full)\n"
			 "  3 hops of this packet were lost (ring buffer full)\n"
			 "\n");
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert_str_eq(t,
			 "{\"id\":7,\"len\":98,"
			 "\"hops\":[{\"func\":\"veth_xmit\",\"t_ns\":0," HOP_A ","
			 "{\"func\":\"probe#3\",\"t_ns\":1796,\"netns\":4026532001,\"ifindex\":6,"
			 "\"cpu\":0,\"pid\":0,\"comm\":\"swapper/0\",\"len\":98,"
			 "\"skb\":\"0xffff888000007000\"}],"
			 "\"fate\":{\"kind\":\"unseen\"},"
			 "\"seen_last\":{\"func\":\"probe#3\",\"t_ns\":1796,\"ifindex\":6},"
			 "\"lost_hops\":3,\"mark_lost\":true,\"mono_ns\":1001204,"
			 "\"real_ns\":1795688548123457204}\n");
	ck_assert(json_line_ok(t));
	s.p.lost = 1;
	s.p.fate = PP_FATE_CONSUMED;
	s.p.nhops = 1;
	s.hops[1].netns = 0;
	s.hops[1].ifname[0] = '\0';
	s.hops[1].ifindex = 0;
	pp_out_text(&c.o, &s.p);
	ck_assert_str_eq(out(&c),
			 "#7 10:22:28.123457 len 98 (packet bytes unknown)\n"
			 "        0.000    +0.000          - -                 1 veth_xmit\n"
			 "  consumed after 0.000 us\n"
			 "  the mark record of this packet was lost (ring buffer full)\n"
			 "  1 hop of this packet was lost (ring buffer full)\n"
			 "\n");
	cap_close(&c);
}
END_TEST

/*
 * A packet last seen where its skb had no device (tp:tcp:tcp_probe: TCP
 * cleared skb->dev): "last seen at FUNC", with no " on -".
 */
START_TEST(test_seen_last_no_device)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	sample(&s);
	s.p.nhops = 3;
	s.p.fate = PP_FATE_UNSEEN;
	s.hops[2].ifname[0] = '\0';
	s.hops[2].ifindex = 0;
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t, "\n  end not seen: last seen at tp:net:netif_receive_skb "
					"after 3.000 us\n"));
	ck_assert_ptr_null(strstr(t, " on -"));
	cap_close(&c);
}
END_TEST

/*
 * A packet whose every skb ended as a tap's (a frame no protocol takes,
 * handed to tcpdump alone): its fate line, then a line that says so.
 */
START_TEST(test_by_tap)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	sample(&s);
	s.hops[4].flags |= PP_HOP_TAP;
	s.p.by_tap = true;
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(
		strstr(t, "\n  dropped: NETFILTER_DROP at nf_hook_slow after 12.001 us\n"
			  "  (it went to a tap alone, a packet socket such as tcpdump's: "
			  "no protocol took it)\n  why: "));
	s.p.fate = PP_FATE_CONSUMED;
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(
		strstr(t, "\n  consumed after 12.001 us\n  (it went to a tap alone, "));
	ck_assert(lines_fit(t));
	cap_close(&c);
}
END_TEST

/*
 * A packet that left a qdisc's device with hops unseen (PP_HOP_GAP on the
 * record after them): said in its text and JSON, and counted in the totals.
 */
START_TEST(test_gap)
{
	struct pp_totals totals = {0};
	struct capture c;
	struct sample s;
	const char *t;

	sample(&s);
	s.hops[2].flags |= PP_HOP_GAP;
	ck_assert_uint_eq(pp_packet_gaps(&s.p), 1);
	cap_open(&c);
	pp_out_text(&c.o, &s.p);
	ck_assert_ptr_nonnull(strstr(out(&c), "\n  hops not seen between veth_xmit and "));
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t, "\"unseen_before\":true"));
	ck_assert_ptr_nonnull(strstr(t, "\"gaps\":1,"));
	ck_assert(json_line_ok(t));
	pp_totals_add(&totals, &s.p);
	s.hops[2].flags = 0;
	pp_totals_add(&totals, &s.p);
	ck_assert_uint_eq(totals.gaps, 1);
	pp_out_totals_text(&c.o, &totals);
	ck_assert_ptr_nonnull(strstr(out(&c), ", 0 records lost, 1 packets with hops not seen\n"));
	pp_out_json(&c.o, &s.p);
	ck_assert_ptr_null(strstr(out(&c), "gap"));
	cap_close(&c);
}
END_TEST

/*
 * The tracepoint backend's END of a datagram that the reader's receive call
 * freed itself (PP_HOP_READ: consume_skb from skb_consume_udp) names the
 * reader, in text and JSON; without the flag it names none.
 */
START_TEST(test_read_by_free)
{
	struct capture c;
	struct sample s;
	const char *t;

	sample(&s);
	s.hops[4] = mkhop(PP_REC_END, 2, 1012001, NS_B, "veth-b", 6, 1);
	s.hops[4].fate = PP_FATE_CONSUMED;
	s.hops[4].flags = PP_HOP_READ;
	s.p.fate = PP_FATE_CONSUMED;
	s.p.reason = 0;
	s.p.location = 0;
	cap_open(&c);
	pp_out_text(&c.o, &s.p);
	ck_assert_ptr_nonnull(strstr(
		out(&c), "\n  consumed after 12.001 us; read by ping (pid 4321) at 12.001 us\n"));
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t, "\"read\":true"));
	ck_assert_ptr_nonnull(strstr(
		t, "\"fate\":{\"kind\":\"consumed\",\"read\":{\"pid\":4321,\"comm\":\"ping\","));
	ck_assert(json_line_ok(t));
	s.hops[4].flags = 0;
	pp_out_text(&c.o, &s.p);
	ck_assert_ptr_null(strstr(out(&c), "read by"));
	cap_close(&c);
}
END_TEST

/* No names at all: numbers and addresses instead. */
START_TEST(test_no_names)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	c.o.probe_names = NULL;
	c.o.reason_name = NULL;
	c.o.sym_name = NULL;
	sample(&s);
	s.p.nhops = 2;
	s.p.hops = &s.hops[3];
	pp_out_text(&c.o, &s.p);
	ck_assert_str_eq(
		out(&c),
		"#7 10:22:28.123459 len 98 icmp 198.18.0.1 > 198.18.1.2 echo request id 4242 "
		"seq 1\n"
		"  (marked at veth-a egress)\n"
		"        0.000    +0.000 4026532001 veth-b            0 tc:ingress\n"
		"        8.501    +8.501 4026532001 veth-b            0 probe#2\n"
		"  dropped: reason 5 at 0xffffffff81a2b3c4 after 8.501 us\n"
		"  why: no explanation known to pktpath for this reason (reason 5 at "
		"0xffffffff81a2b3c4 on veth-b,\n"
		"       netns 4026532001)\n"
		"\n");
	s.p.location = 0;
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t,
				     "\"fate\":{\"kind\":\"dropped\",\"reason_code\":5,"
				     "\"hint\":\"no explanation known to pktpath for this reason "
				     "(reason 5)\"},\"mono_ns\":"));
	ck_assert_ptr_nonnull(strstr(t, "{\"func\":\"probe#2\",\"t_ns\":8501,"));
	ck_assert(json_line_ok(t));
	cap_close(&c);
}
END_TEST

/* A kernel without drop reasons (before 5.17): code 0, no name: none given, none claimed. */
START_TEST(test_no_reason)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	c.o.reason_name = NULL;
	sample(&s);
	s.p.reason = 0;
	s.hops[4].reason = 0;
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t, "  dropped: no reason from the kernel at nf_hook_slow"));
	ck_assert_ptr_null(strstr(t, "reason 0"));
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t, "\"fate\":{\"kind\":\"dropped\",\"reason_code\":0,"));
	ck_assert(json_line_ok(t));
	cap_close(&c);
}
END_TEST

/* Device names and comms are raw kernel bytes, up to 16 without a NUL. */
START_TEST(test_nasty_names)
{
	static const char nasty[PP_IFNAMSIZ] = {
		'"', '\\', '\n', 0x01, 0x7f, (char)0xc3, (char)0xa9, (char)0xff,
		'e', 't',  'h',	 '0',  '1',  '2',	 '3',	     '4'};
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	sample(&s);
	memcpy(s.hops[1].ifname, nasty, sizeof(nasty));
	strcpy(s.hops[1].comm, "a\tb\x1b[2J");
	s.p.hops = &s.hops[1];
	s.p.nhops = 1;
	s.p.mark = NULL;
	s.p.fate = PP_FATE_CONSUMED;
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert_str_eq(t, "{\"id\":7,\"len\":98,\"hops\":[{\"func\":\"veth_xmit\",\"t_ns\":0,"
			    "\"netns\":4026531840,"
			    "\"ifname\":\"\\\"\\\\\\n\\u0001\\u007f\\u00c3\\u00a9\\u00ffeth01234\","
			    "\"ifindex\":5,\"cpu\":1,\"pid\":4321,\"comm\":\"a\\tb\\u001b[2J\","
			    "\"len\":98,\"skb\":\"0xffff888000007000\"}],"
			    "\"fate\":{\"kind\":\"consumed\"},\"mark_lost\":true,"
			    "\"mono_ns\":1001204,\"real_ns\":1795688548123457204}\n");
	ck_assert(json_line_ok(t));
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(strstr(t, " 4026531840 \"\\??????eth01234   1 veth_xmit\n"));
	cap_close(&c);
}
END_TEST

/* tcp [fd00:1111:2222:3333::7777].41000 > [fd00:1111:2222:3333::8888].443 [S] seq 1 len 0 */
static const char tcp6_hex[] = "020000000002"
			       "020000000001"
			       "86dd"
			       "6000000000140640"
			       "fd00111122223333"
			       "0000000000007777"
			       "fd00111122223333"
			       "0000000000008888"
			       "a02801bb0000000100000000"
			       "5002ffff00000000";

/* A long summary pushes where the packet was marked to a line of its own. */
START_TEST(test_long_header)
{
	struct capture c;
	struct sample s;
	const char *t;

	cap_open(&c);
	sample(&s);
	s.mark.cap_len = unhex(s.mark.data, tcp6_hex);
	s.p.nhops = 1;
	s.p.fate = PP_FATE_UNSEEN;
	pp_out_text(&c.o, &s.p);
	t = out(&c);
	ck_assert_str_eq(t, "#7 10:22:28.123456 len 98\n"
			    "  tcp [fd00:1111:2222:3333::7777].41000 > "
			    "[fd00:1111:2222:3333::8888].443 [S] seq 1 len 0\n"
			    "  (marked at veth-a egress)\n"
			    "        0.000    +0.000 4026531840 veth-a            1 tc:egress\n"
			    "  end not seen: last seen at tc:egress on veth-a after 0.000 us\n"
			    "  (no probe saw its free within the packet timeout)\n"
			    "\n");
	ck_assert(lines_fit(t));
	pp_out_json(&c.o, &s.p);
	t = out(&c);
	ck_assert_ptr_nonnull(
		strstr(t, "\"pkt\":{\"proto\":\"tcp\","
			  "\"src\":\"fd00:1111:2222:3333::7777\","
			  "\"dst\":\"fd00:1111:2222:3333::8888\",\"ip_proto\":6,"
			  "\"sport\":41000,\"dport\":443,\"tcp_flags\":\"S\",\"tcp_seq\":1,"
			  "\"tcp_len\":0},"));
	ck_assert_ptr_nonnull(strstr(t, "\"fate\":{\"kind\":\"unseen\"},\"seen_last\":{"
					"\"func\":\"tc:egress\",\"t_ns\":0,"));
	ck_assert(json_line_ok(t));
	cap_close(&c);
}
END_TEST

/*
 * Each fate's line in the text block and in the exports' one-line form
 * (path_line.h), as they read before fate.c's table: a change of words is
 * a change of output, seen here.
 */
START_TEST(test_fate_words)
{
	static const struct {
		enum pp_fate fate;
		const char *text, *line;
	} want[] = {
		{PP_FATE_CONSUMED, "  consumed after ", "consumed after "},
		{PP_FATE_MERGED, "  merged into another skb after ", "merged after "},
		{PP_FATE_SEGMENTED,
		 "  segmented (its data went on in its copies: GSO segments or IP fragments) "
		 "after ",
		 "segmented after "},
		{PP_FATE_LEFT,
		 "  left the scope (its last hop is the first outside it; not followed) after ",
		 "left after "},
		{PP_FATE_UNSEEN, "  end not seen: last seen at tp:skb:kfree_skb on veth-b after ",
		 "end not seen after "},
		{PP_FATE_NONE, "  none after ", "none after "},
		{PP_FATE_DROPPED, "  dropped: NETFILTER_DROP at nf_hook_slow after ",
		 "dropped: NETFILTER_DROP at nf_hook_slow after "},
	};
	struct capture c;
	struct sample s;
	char line[256];

	cap_open(&c);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct pp_sbuf f = {.buf = line, .len = sizeof(line)};

		sample(&s);
		s.p.fate = want[i].fate;
		pp_out_text(&c.o, &s.p);
		ck_assert_msg(strstr(out(&c), want[i].text), "fate %d: no \"%s\"", want[i].fate,
			      want[i].text);
		pp_line_fate(&c.o, &s.p, &f);
		ck_assert_msg(!strncmp(line, want[i].line, strlen(want[i].line)),
			      "fate %d: \"%s\", not \"%s\"", want[i].fate, line, want[i].line);
	}
	/* The exports name no reason 0 "no reason from the kernel": the text block alone does. */
	c.o.reason_name = NULL;
	s.p.reason = 0;
	s.p.location = 0;
	pp_out_text(&c.o, &s.p);
	ck_assert_ptr_nonnull(strstr(out(&c), "  dropped: no reason from the kernel after "));
	{
		struct pp_sbuf f = {.buf = line, .len = sizeof(line)};

		pp_line_fate(&c.o, &s.p, &f);
		ck_assert_str_eq(line, "dropped: reason 0 after 12.001 us");
	}
	cap_close(&c);
}
END_TEST

/* The formats by name, each writing as its functions do; an unknown name has none. */
START_TEST(test_formats)
{
	const struct pp_out_ops *text = pp_out_format("text"), *json = pp_out_format("json");
	struct capture c;
	struct sample s;
	char want[4096];

	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(json);
	ck_assert_str_eq(text->name, "text");
	ck_assert_str_eq(json->name, "json");
	ck_assert_ptr_null(pp_out_format("yaml"));
	ck_assert(text->totals == pp_out_totals_text && json->totals == pp_out_totals_json);
	ck_assert_ptr_nonnull(text->begin);
	ck_assert_ptr_null(json->begin); /* JSON lines have no header line */
	cap_open(&c);
	sample(&s);
	pp_out_text_header(&c.o);
	pp_out_text(&c.o, &s.p);
	snprintf(want, sizeof(want), "%s", out(&c));
	text->begin(&c.o);
	text->packet(&c.o, &s.p);
	ck_assert_str_eq(out(&c), want);
	pp_out_json(&c.o, &s.p);
	snprintf(want, sizeof(want), "%s", out(&c));
	json->packet(&c.o, &s.p);
	ck_assert_str_eq(out(&c), want);
	cap_close(&c);
}
END_TEST

/*
 * Today's fates as fate.c's rows must keep them (key, exit line column), in
 * this order: a changed word or order is a change of output. A new fate is a
 * new row in between, checked by test_summary_every_fate without a line here.
 */
static const struct {
	enum pp_fate fate;
	const char *key, *total;
} fates_pinned[] = {
	{PP_FATE_CONSUMED, "consumed", "consumed"}, {PP_FATE_DROPPED, "dropped", "dropped"},
	{PP_FATE_MERGED, "merged", "merged"},	    {PP_FATE_SEGMENTED, "segmented", "segmented"},
	{PP_FATE_LEFT, "left", "left the scope"},   {PP_FATE_UNSEEN, "unseen", "end not seen"},
};

START_TEST(test_fate_rows)
{
	size_t at = 0;

	/* Every fate in enum pp_fate but NONE has exactly one row. */
	for (__u32 f = PP_FATE_NONE; f <= PP_FATE_MAX; f++) {
		size_t n = 0;

		for (size_t i = 0; i < pp_nfates; i++)
			n += pp_fates[i].fate == f;
		ck_assert_msg(n == (f != PP_FATE_NONE), "fate %u: %zu rows", f, n);
	}
	for (size_t p = 0; p < sizeof(fates_pinned) / sizeof(fates_pinned[0]); p++) {
		while (at < pp_nfates && pp_fates[at].fate != fates_pinned[p].fate)
			at++;
		ck_assert_msg(at < pp_nfates, "fate %s: no row after the previous one",
			      fates_pinned[p].key);
		ck_assert_str_eq(pp_fates[at].key, fates_pinned[p].key);
		ck_assert_str_eq(pp_fates[at].total, fates_pinned[p].total);
	}
}
END_TEST

/*
 * The exit line and JSON's summary, every fate counted (row i counts i + 1,
 * so a column taken from the wrong fate shows): fate.c's rows in order.
 */
START_TEST(test_summary_every_fate)
{
	struct pp_totals totals = {0};
	char text[1024], json[1024];
	struct pp_sbuf t = {.buf = text, .len = sizeof(text)};
	struct pp_sbuf j = {.buf = json, .len = sizeof(json)};
	struct capture c;

	for (size_t i = 0; i < pp_nfates; i++) {
		totals.fates[pp_fates[i].fate] = i + 1;
		totals.packets += i + 1;
	}
	pp_sb_str(&t, "pktpath: ");
	pp_sb_u64(&t, totals.packets);
	pp_sb_str(&t, " packets (");
	pp_sb_str(&j, "{\"summary\":{\"packets\":");
	pp_sb_u64(&j, totals.packets);
	for (size_t i = 0; i < pp_nfates; i++) {
		pp_sb_str(&t, i ? ", " : "");
		pp_sb_u64(&t, i + 1);
		pp_sb_str(&t, " ");
		pp_sb_str(&t, pp_fates[i].total);
		pp_sb_str(&j, ",\"");
		pp_sb_str(&j, pp_fates[i].key);
		pp_sb_str(&j, "\":");
		pp_sb_u64(&j, i + 1);
	}
	pp_sb_str(&t, "), 0 records lost\n");
	pp_sb_str(&j, ",\"taps\":0,\"lost\":0,\"gaps\":0,\"map_full\":0,\"skipped\":0}}\n");
	cap_open(&c);
	pp_out_totals_text(&c.o, &totals);
	ck_assert_str_eq(out(&c), text);
	pp_out_totals_json(&c.o, &totals);
	ck_assert_str_eq(out(&c), json);
	cap_close(&c);
}
END_TEST

START_TEST(test_summary)
{
	struct pp_totals totals = {.lost = 4};
	struct capture c;
	struct sample s;
	const char *t;

	sample(&s);
	pp_totals_add(&totals, &s.p);
	s.p.fate = PP_FATE_CONSUMED;
	pp_totals_add(&totals, &s.p);
	pp_totals_add(&totals, &s.p);
	s.p.fate = PP_FATE_UNSEEN;
	pp_totals_add(&totals, &s.p);
	cap_open(&c);
	pp_out_totals_text(&c.o, &totals);
	ck_assert_str_eq(out(&c),
			 "pktpath: 4 packets (2 consumed, 1 dropped, 0 merged, 1 end not seen), "
			 "4 records lost\n");
	totals.map_full = 2;
	totals.skipped = 9;
	pp_out_totals_text(&c.o, &totals);
	ck_assert_str_eq(out(&c), "pktpath: 4 packets (2 consumed, 1 dropped, 0 merged, "
				  "1 end not seen), 4 records lost, 2 packets untracked "
				  "(skb_map full), 9 probe runs skipped by the kernel\n");
	pp_out_totals_json(&c.o, &totals);
	t = out(&c);
	ck_assert_str_eq(t, "{\"summary\":{\"packets\":4,\"consumed\":2,\"dropped\":1,"
			    "\"merged\":0,\"segmented\":0,\"unseen\":1,\"taps\":0,\"lost\":4,"
			    "\"gaps\":0,\"map_full\":2,\"skipped\":9}}\n");
	totals.skipped = 0;
	ck_assert(json_line_ok(t));
	/* Taps' copies are counted apart from the packets' fates. */
	totals.taps = 3;
	pp_out_totals_text(&c.o, &totals);
	ck_assert_str_eq(out(&c), "pktpath: 4 packets (2 consumed, 1 dropped, 0 merged, "
				  "1 end not seen), 3 tap copies, 4 records lost, 2 packets "
				  "untracked (skb_map full)\n");
	cap_close(&c);
}
END_TEST

/* The escapes the JSON writer promises (its header comment), a byte at a time. */
static void ref_json_str(char *out, const char *s, size_t max)
{
	size_t i;

	*out++ = '"';
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			out += sprintf(out, "\\%c", c);
		else if (c == '\n')
			out += sprintf(out, "\\n");
		else if (c == '\t')
			out += sprintf(out, "\\t");
		else if (c == '\r')
			out += sprintf(out, "\\r");
		else if (c == '\b')
			out += sprintf(out, "\\b");
		else if (c == '\f')
			out += sprintf(out, "\\f");
		else if (c < 0x20 || c >= 0x7f)
			out += sprintf(out, "\\u%04x", c);
		else
			*out++ = (char)c;
	}
	strcpy(out, "\"");
}

/* A name with byte c at pos and then next: the writer scans 8 bytes at a time. */
static void odd_name(char *name, size_t len, size_t pos, char c, char next)
{
	size_t i;

	for (i = 0; i < len; i++)
		name[i] = (char)('a' + i % 26);
	name[len] = '\0';
	if (pos < len)
		name[pos] = c;
	if (pos + 1 < len)
		name[pos + 1] = next;
}

/* One hop named name, with that comm; its "func" and "comm" against the reference. */
static void check_json_names(struct capture *c, struct sample *s, const char *name)
{
	char want[512];
	const char *t;

	c->o.probe_names = &name;
	c->o.nprobes = 1;
	memset(s->hops[1].comm, '"', sizeof(s->hops[1].comm)); /* past the NUL: never printed */
	memcpy(s->hops[1].comm, name, strnlen(name, sizeof(s->hops[1].comm)));
	if (strlen(name) < sizeof(s->hops[1].comm))
		s->hops[1].comm[strlen(name)] = '\0';
	pp_out_json(&c->o, &s->p);
	t = out(c);
	ck_assert(json_line_ok(t));
	strcpy(want, "{\"func\":");
	ref_json_str(want + strlen(want), name, SIZE_MAX);
	ck_assert_ptr_nonnull(strstr(t, want));
	if (!name[0])
		return; /* no comm key */
	strcpy(want, ",\"comm\":");
	ref_json_str(want + strlen(want), s->hops[1].comm, sizeof(s->hops[1].comm));
	ck_assert_ptr_nonnull(strstr(t, want));
}

START_TEST(test_json_escapes)
{
	static const char odd[] = {'"', '\\', '\n', 0x01, 0x1f, 0x7f, (char)0x80, (char)0xff};
	static const char after[] = {' ', 'a', 0x01, '"'};
	struct capture c;
	struct sample s;
	char name[48];
	size_t len, pos, k, a;

	cap_open(&c);
	sample(&s);
	s.p.hops = &s.hops[1];
	s.p.nhops = 1;
	s.p.mark = NULL;
	s.hops[1].probe = 0;
	for (len = 0; len <= 40; len++) {
		odd_name(name, len, 0, 'a', 'b');
		check_json_names(&c, &s, name);
		for (pos = 0; pos < len; pos++) {
			for (k = 0; k < sizeof(odd); k++) {
				for (a = 0; a < sizeof(after); a++) {
					odd_name(name, len, pos, odd[k], after[a]);
					check_json_names(&c, &s, name);
				}
			}
		}
	}
	cap_close(&c);
}
END_TEST

/* A hop line as the printf format that pp_out_text() replaced writes it. */
static int ref_hop_line(char *out, size_t len, const struct pp_hop *h, __u64 t0, __u64 prev,
			const char *name)
{
	char t[32], d[32], ns[16], dev[24];

	snprintf(t, sizeof(t), "%llu.%03llu", (unsigned long long)((h->ts - t0) / 1000),
		 (unsigned long long)((h->ts - t0) % 1000));
	snprintf(d, sizeof(d), "+%llu.%03llu", (unsigned long long)((h->ts - prev) / 1000),
		 (unsigned long long)((h->ts - prev) % 1000));
	snprintf(ns, sizeof(ns), "%u", h->netns);
	if (h->ifname[0])
		snprintf(dev, sizeof(dev), "%.16s", h->ifname);
	else if (h->ifindex)
		snprintf(dev, sizeof(dev), "if%u", h->ifindex);
	else
		strcpy(dev, "-");
	return snprintf(out, len, "  %11s %9s %10s %-15s %3u %s\n", t, d, h->netns ? ns : "-", dev,
			h->cpu, name);
}

/* Every hop column at its widest and narrowest; the second hop's time wraps when earlier. */
START_TEST(test_text_extremes)
{
	static const __u32 u32s[] = {0, 1, 9, 10, 999, 1000, 4026531840U, 0xffffffffU};
	static const __u64 times[] = {0, 999, 1000, 123456789, 0xffffffffffffffffULL};
	static const char *const devs[] = {"", "eth0", "abcdefghijklmno", "abcdefghijklmnop"};
	struct pp_hop *h;
	struct capture c;
	struct sample s;
	char want[512];
	const char *t;
	size_t i, j, k;
	int n;

	cap_open(&c);
	sample(&s);
	s.p.hops = &s.hops[1];
	s.p.nhops = 2;
	s.p.mark = NULL;
	for (i = 0; i < 8; i++) {
		for (j = 0; j < sizeof(times) / sizeof(times[0]); j++) {
			for (k = 0; k < sizeof(devs) / sizeof(devs[0]); k++) {
				h = &s.hops[1];
				h->netns = u32s[i];
				h->cpu = u32s[(i + j) % 8];
				h->ifindex = u32s[(i + k) % 8];
				/* The literals are shorter than ifname: copy only theirs. */
				memset(h->ifname, 0, sizeof(h->ifname));
				memcpy(h->ifname, devs[k], strlen(devs[k]));
				h->ts = times[j];
				s.hops[2].ts = times[j] / 3;
				s.hops[2].cpu = u32s[(i + 3) % 8];
				pp_out_text(&c.o, &s.p);
				t = strchr(out(&c), '\n') + 1;
				n = ref_hop_line(want, sizeof(want), h, h->ts, h->ts, "veth_xmit");
				ref_hop_line(want + n, sizeof(want) - n, &s.hops[2], h->ts, h->ts,
					     "tp:net:netif_receive_skb");
				ck_assert_int_eq(strncmp(t, want, strlen(want)), 0);
			}
		}
	}
	cap_close(&c);
}
END_TEST

Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("formats");

	tcase_add_test(tc, test_json_reader);
	tcase_add_test(tc, test_text_dropped);
	tcase_add_test(tc, test_text_frame);
	tcase_add_test(tc, test_text_frame_redirect);
	tcase_add_test(tc, test_hop_now);
	tcase_add_test(tc, test_mark_reply);
	tcase_add_test(tc, test_json_dropped);
	tcase_add_test(tc, test_json_key_order);
	tcase_add_test(tc, test_json_schema_example);
	tcase_add_test(tc, test_lost);
	tcase_add_test(tc, test_seen_last_no_device);
	tcase_add_test(tc, test_by_tap);
	tcase_add_test(tc, test_gap);
	tcase_add_test(tc, test_read_by_free);
	tcase_add_test(tc, test_no_names);
	tcase_add_test(tc, test_no_reason);
	tcase_add_test(tc, test_nasty_names);
	tcase_add_test(tc, test_long_header);
	tcase_add_test(tc, test_fate_words);
	tcase_add_test(tc, test_formats);
	tcase_add_test(tc, test_summary);
	tcase_add_test(tc, test_fate_rows);
	tcase_add_test(tc, test_summary_every_fate);
	tcase_add_test(tc, test_copies);
	tcase_add_test(tc, test_json_escapes);
	tcase_add_test(tc, test_text_extremes);
	suite_add_tcase(s, tc);
	return s;
}
