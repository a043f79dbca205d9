// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "base/compat.h"
#include "pktpath.h"
#include "probes/life_points.h"

struct life_point {
	const char *name; /* as in the probe list */
	__u32 bits;	  /* PP_COOKIE_TAKES, PP_COOKIE_STARTS, PP_COOKIE_QUEUES */
	bool reads;	  /* the reader copies the data out */
};

/*
 * Without kprobes, TCP's and UDP's receive paths free a taken skb where no
 * tracepoint fires (the NAPI cache, a deferred free), and the sk_buff comes
 * back without an allocation: TCP retransmits in the same fclone slot, a
 * driver builds from the NAPI cache. A taken skb goes to no device again as
 * the same packet, so one met where a packet's way starts carries another.
 *   takes:  TCP's receive of an established connection (tcp_probe fires in
 *           it), a reader's copy (which reads: a copy that leaves nothing
 *           unread ends the packet, bpf/reads.bpf.h), UDP's reader done;
 *   starts: a device's transmit queue, the receive entries (GRO, the
 *           backlog, netif_receive_skb).
 *   queues: a qdisc holds it, maybe for longer than --packet-timeout (a
 *           shaper's queue): the loader keeps its packet open meanwhile.
 */
static const struct life_point points[] = {
	{"tp:tcp:tcp_probe", PP_COOKIE_TAKES, false},
	{"tcp_rcv_established", PP_COOKIE_TAKES, false},
	{"tp:skb:skb_copy_datagram_iovec", PP_COOKIE_TAKES | PP_COOKIE_READS, true},
	{"skb_copy_datagram_iter", PP_COOKIE_TAKES | PP_COOKIE_READS, true},
	{"skb_consume_udp", PP_COOKIE_TAKES, true},
	{"tp:net:net_dev_queue", PP_COOKIE_STARTS, false},
	{"tp:qdisc:qdisc_enqueue", PP_COOKIE_QUEUES, false},
	{"__dev_queue_xmit", PP_COOKIE_STARTS, false},
	{"tp:net:napi_gro_receive_entry", PP_COOKIE_STARTS, false},
	{"tp:net:napi_gro_frags_entry", PP_COOKIE_STARTS, false},
	{"napi_gro_receive", PP_COOKIE_STARTS, false},
	{"gro_receive_skb", PP_COOKIE_STARTS, false},
	{"tp:net:netif_rx", PP_COOKIE_STARTS, false},
	{"netif_rx", PP_COOKIE_STARTS, false},
	{"__netif_rx", PP_COOKIE_STARTS, false},
	{"tp:net:netif_receive_skb_entry", PP_COOKIE_STARTS, false},
	{"tp:net:netif_receive_skb_list_entry", PP_COOKIE_STARTS, false},
	{"netif_receive_skb", PP_COOKIE_STARTS, false},
};

static const struct life_point *find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(points); i++)
		if (!strcmp(name, points[i].name))
			return &points[i];
	return NULL;
}

__u32 pp_life_point_bits(const char *name)
{
	const struct life_point *p = find(name);

	return p ? p->bits : 0;
}

bool pp_life_point_reads(const char *name)
{
	const struct life_point *p = find(name);

	return p && p->reads;
}
