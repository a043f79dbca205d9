// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>
#include "filter/pcap_io.h"

/* pcap's struct bpf_insn has struct sock_filter's layout: u16, u8, u8, u32. */
_Static_assert(sizeof(struct bpf_insn) == 8, "classic instruction is 8 bytes");

static int compile_dlt(int dlt, const char *expr, struct sock_filter **out, size_t *len, char *err,
		       size_t errlen);

int pp_pcap_compile(const char *expr, struct sock_filter **out, size_t *len, char *err,
		    size_t errlen)
{
	return compile_dlt(DLT_EN10MB, expr, out, len, err, errlen);
}

int pp_pcap_compile_l3(const char *expr, struct sock_filter **out, size_t *len, char *err,
		       size_t errlen)
{
	return compile_dlt(DLT_RAW, expr, out, len, err, errlen);
}

static int compile_dlt(int dlt, const char *expr, struct sock_filter **out, size_t *len, char *err,
		       size_t errlen)
{
	struct bpf_program prog = {0};
	int ret = 0;
	pcap_t *p;

	p = pcap_open_dead(dlt, PP_SNAPLEN);
	if (!p) {
		snprintf(err, errlen, "libpcap: cannot open a dead handle");
		return -ENOMEM;
	}
	/* Optimised, as tcpdump compiles it. */
	if (pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, errlen, "%s", pcap_geterr(p));
		ret = -EINVAL;
		goto cleanup;
	}
	*out = malloc(prog.bf_len * sizeof(struct bpf_insn));
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto cleanup;
	}
	memcpy(*out, prog.bf_insns, prog.bf_len * sizeof(struct bpf_insn));
	*len = prog.bf_len;
cleanup:
	pcap_freecode(&prog);
	pcap_close(p);
	return ret;
}

int pp_pcap_offline_match(const struct sock_filter *prog, size_t len, const unsigned char *data,
			  unsigned int caplen, unsigned int wirelen)
{
	struct bpf_program bp = {.bf_len = (u_int)len, .bf_insns = (struct bpf_insn *)prog};
	struct pcap_pkthdr h = {.caplen = caplen, .len = wirelen};

	return pcap_offline_filter(&bp, &h, data);
}

int pp_pcap_foreach(const char *path, pp_frame_fn fn, void *ctx, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned long num = 0;
	int ret = 0, rc;
	pcap_t *p;

	p = pcap_open_offline(path, perr);
	if (!p) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -EINVAL;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(err, errlen, "%s: link type %s, pktpath filters Ethernet (EN10MB) only",
			 path, pcap_datalink_val_to_name(pcap_datalink(p)));
		ret = -EINVAL;
		goto cleanup;
	}
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		ret = fn(++num, data, h->caplen, h->len, ctx);
		if (ret)
			goto cleanup;
	}
	if (rc == PCAP_ERROR) {
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(p));
		ret = -EIO;
	}
cleanup:
	pcap_close(p);
	return ret;
}
