// SPDX-License-Identifier: GPL-2.0
/*
 * loader/output/export_perfetto.c on a packet with copies: slices per skb thread,
 * flows where copies joined (one after its parent's end, clamped into the
 * parent's last slice; one whose parent is unknown, none), and the whole
 * file through tests/perfetto_check.sh when jq is there.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "output/export_perfetto.h"
#include "suites.h"

#define SKB_A 0xa000
#define SKB_B 0xb000
#define SKB_C 0xc000
#define SKB_D 0xd000

static const char *const names[] = {"ip_rcv", "tp:skb:kfree_skb", "tp:skb:consume_skb"};

static struct pp_hop hop(__u32 type, __u32 probe, __u64 ts, __u64 skb, __u64 from)
{
	struct pp_hop h = {.type = type,
			   .probe = probe,
			   .id = 9,
			   .ts = ts,
			   .skb = skb,
			   .location = from,
			   .netns = 1,
			   .ifindex = 2,
			   .len = 98};

	strcpy(h.ifname, "eth\"0"); /* a quote to escape */
	return h;
}

/* A: marked, ip_rcv, dropped; B copy of A; C copy of B, seen after B ended; D: parent unknown. */
static void sample(struct pp_hop h[10], struct pp_skbref s[4], struct pp_packet *p)
{
	h[0] = hop(PP_REC_MARK, PP_PROBE_TC_INGRESS, 1000, SKB_A, 0);
	h[1] = hop(PP_REC_COPY, 0, 1500, SKB_B, SKB_A);
	h[2] = hop(PP_REC_HOP, 0, 2000, SKB_A, 0);
	h[3] = hop(PP_REC_HOP, 0, 3000, SKB_B, 0);
	h[4] = hop(PP_REC_COPY, 0, 3500, SKB_D, 0xdead);
	h[5] = hop(PP_REC_END, 2, 4000, SKB_B, 0);
	h[6] = hop(PP_REC_COPY, 0, 4500, SKB_C, SKB_B);
	h[7] = hop(PP_REC_END, 1, 5000, SKB_A, 0);
	h[8] = hop(PP_REC_END, 2, 6000, SKB_C, 0);
	h[9] = hop(PP_REC_END, 2, 6000, SKB_D, 0);
	s[0] = (struct pp_skbref){.skb = SKB_A, .ended = true, .fate = PP_FATE_DROPPED};
	s[1] = (struct pp_skbref){.skb = SKB_B,
				  .parent = SKB_A,
				  .copy = true,
				  .ended = true,
				  .fate = PP_FATE_CONSUMED};
	s[2] = (struct pp_skbref){.skb = SKB_D,
				  .parent = 0xdead,
				  .copy = true,
				  .ended = true,
				  .fate = PP_FATE_CONSUMED};
	s[3] = (struct pp_skbref){.skb = SKB_C,
				  .parent = SKB_B,
				  .copy = true,
				  .ended = true,
				  .fate = PP_FATE_CONSUMED};
	*p = (struct pp_packet){
		.id = 9, .hops = h, .nhops = 10, .skbs = s, .nskbs = 4, .fate = PP_FATE_CONSUMED};
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

START_TEST(test_copies_as_flows)
{
	struct pp_out o = {.probe_names = names, .nprobes = 3};
	struct pp_perfetto_out *x;
	struct pp_skbref s[4];
	struct pp_hop h[10];
	struct pp_packet p;
	char *buf, path[] = "/tmp/pp-unit-perfetto.XXXXXX", cmd[512];
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	int fd;

	sample(h, s, &p);
	x = pp_perfetto_out_new(f, "pktpath test");
	ck_assert_ptr_nonnull(x);
	pp_perfetto_out_packet(x, &o, &p);
	p.id = 10;
	pp_perfetto_out_packet(x, &o, &p); /* flow ids go on: 3 and 4 */
	pp_perfetto_out_end(x);
	ck_assert_uint_eq(pp_perfetto_out_count(x), 2);
	pp_perfetto_out_free(x);
	fclose(f);
	/* Skb threads: A tid 1, B tid 2, D tid 3, C tid 4. */
	ck_assert_ptr_nonnull(strstr(buf,
				     "{\"name\":\"tc:ingress\",\"ph\":\"X\",\"pid\":9,\"tid\":1,"
				     "\"cat\":\"hop\",\"ts\":1.000,\"dur\":1.000,\"args\":{"
				     "\"dev\":\"eth\\\"0\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"ph\":\"X\",\"pid\":9,\"tid\":1,\"cat\":\"hop\","
					  "\"ts\":5.000,\"dur\":0.000"));
	/* B left A in A's first slice at 1.5 us, and starts its own there. */
	ck_assert_ptr_nonnull(strstr(buf, "{\"name\":\"copy\",\"ph\":\"s\",\"pid\":9,\"tid\":1,"
					  "\"cat\":\"copy\",\"id\":1,\"ts\":1.500}"));
	ck_assert_ptr_nonnull(strstr(buf, "{\"name\":\"copy\",\"ph\":\"f\",\"pid\":9,\"tid\":2,"
					  "\"cat\":\"copy\",\"id\":1,\"ts\":1.500,\"bp\":\"e\"}"));
	/* C was seen after B's end: the flow leaves B's last slice (4 us). */
	ck_assert_ptr_nonnull(strstr(buf, "{\"name\":\"copy\",\"ph\":\"s\",\"pid\":9,\"tid\":2,"
					  "\"cat\":\"copy\",\"id\":2,\"ts\":4.000}"));
	ck_assert_ptr_nonnull(strstr(buf, "\"ph\":\"f\",\"pid\":9,\"tid\":4,\"cat\":\"copy\","
					  "\"id\":2,\"ts\":4.500"));
	ck_assert_uint_eq(count(buf, "\"ph\":\"s\""), 4);
	ck_assert_uint_eq(count(buf, "\"ph\":\"f\""), 4);
	ck_assert_uint_eq(count(buf, "\"ph\":\"X\""), 20);
	ck_assert_ptr_nonnull(strstr(buf, "\"id\":4,"));
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"copy 3 of 1\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"fate\":\"dropped: reason 0\""));
	/* The format's rules, by the e2e test's checker. */
	if (system("command -v jq >/dev/null 2>&1") != 0) {
		printf("SKIP perfetto_check on the unit's trace: jq not installed\n");
		free(buf);
		return;
	}
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s/tests/perfetto_check.sh %s >&2", PP_SOURCE_DIR, path);
	ck_assert_int_eq(system(cmd), 0);
	unlink(path);
	free(buf);
}
END_TEST

Suite *perfetto_suite(void)
{
	Suite *s = suite_create("perfetto");
	TCase *tc = tcase_create("export");

	tcase_add_test(tc, test_copies_as_flows);
	suite_add_tcase(s, tc);
	return s;
}
