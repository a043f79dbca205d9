// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_report_read: `pktpath report`'s reader (loader/report/report_read.c) on any
 * bytes, a line at a time as report.c feeds it, and every packet it returns
 * handed to the printers report runs: the summary, the JSON writer, both
 * exports. Properties: a line gives 0, -EINVAL with a printable ASCII
 * message, or -ENOMEM; a packet has at least one hop, its hops in time
 * order, at least one skb, its mark (if any) the first hop with at most
 * PP_HDR_BYTES bytes, and its fate one of the kinds; and the printers (under
 * ASan and UBSan) take it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "output/export_pcapng.h"
#include "output/export_perfetto.h"
#include "fuzz_memfile.h"
#include "output/output_summary.h"
#include "report/report_read.h"

static void check_packet(const struct pp_packet *p)
{
	FZ_CHECK(p->nhops >= 1 && p->nskbs >= 1);
	for (size_t i = 1; i < p->nhops; i++)
		FZ_CHECK(p->hops[i].ts >= p->hops[i - 1].ts);
	FZ_CHECK(p->fate >= PP_FATE_CONSUMED && p->fate <= PP_FATE_MAX);
	if (p->mark) {
		FZ_CHECK(p->mark->cap_len <= PP_HDR_BYTES);
		FZ_CHECK(p->mark->hop.ts == p->hops[0].ts);
	}
}

static void print(const struct pp_packet *p, struct pp_out *o, struct pp_summary *sum,
		  struct pp_pcapng_out *pcap, struct pp_perfetto_out *perf)
{
	pp_summary_add(sum, p);
	pp_out_json(o, p);
	pp_pcapng_out_packet(pcap, o, p);
	pp_perfetto_out_packet(perf, o, p);
}

static void check_line(struct pp_report_read *r, const char *line, size_t len, struct pp_out *o,
		       struct pp_summary *sum, struct pp_pcapng_out *pcap,
		       struct pp_perfetto_out *perf)
{
	struct pp_report_read_item it;
	char err[512];
	int ret;

	memset(err, 0x55, sizeof(err));
	err[sizeof(err) - 1] = '\0';
	ret = pp_report_read_line(r, line, len, &it, err, sizeof(err));
	FZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENOMEM);
	if (ret) {
		for (const char *c = err; *c; c++)
			FZ_CHECK(*c >= 0x20 && *c < 0x7f);
		return;
	}
	if (it.kind != PP_REPORT_READ_PACKET)
		return;
	check_packet(it.pkt);
	pp_report_read_names(r, o);
	print(it.pkt, o, sum, pcap, perf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *null = fopen("/dev/null", "w");
	struct pp_out o = {.f = null, .head_bytes = PP_HDR_BYTES};
	struct pp_report_read *r = pp_report_read_new();
	struct pp_summary *sum = pp_summary_new(8, 8);
	struct pp_pcapng_out *pcap = null ? pp_pcapng_out_new(null, 0, 0, "fuzz") : NULL;
	struct pp_perfetto_out *perf = null ? pp_perfetto_out_new(null, "fuzz") : NULL;
	const char *s = (const char *)data, *nl;
	struct pp_sum_when when = {.final = true};

	FZ_CHECK(null && r && sum && pcap && perf);
	for (size_t at = 0; at < size; at = (size_t)(nl - s) + 1) {
		nl = memchr(s + at, '\n', size - at);
		if (!nl)
			nl = s + size;
		check_line(r, s + at, (size_t)(nl - s) - at, &o, sum, pcap, perf);
	}
	pp_out_summary_json(&o, sum, &when);
	pp_out_summary_text(&o, sum, &when);
	pp_perfetto_out_end(perf);
	pp_perfetto_out_free(perf);
	pp_pcapng_out_free(pcap);
	pp_summary_free(sum);
	pp_report_read_free(r);
	fclose(null);
	return 0;
}
