// SPDX-License-Identifier: GPL-2.0
/*
 * Network namespaces in the output by name (names/netns_names.h): the hop
 * column shows the name alone, and the first packet block that shows a
 * container's namespace is preceded by a line that says which container it
 * is (the name can be a pod's, or an id's first 12 digits):
 *
 *   netns ppn-web = podman container ppn-web 356fc8a6f8a0
 *   netns coredns-5d78c9869d-4xq2p = pod kube-system/coredns-5d78c9869d-4xq2p,
 *   containerd container coredns 7095077ecf56
 *
 * With -v every named namespace gets such a line, with its inode.
 */
#include <stdlib.h>
#include <string.h>
#include "base/fmt.h"
#include "names/netns_names.h"
#include "output/output.h"

#define PP_SHORT_ID 12

const char *pp_out_netns(const struct pp_out *o, __u32 inode, char *buf, size_t len)
{
	const struct pp_ns_name *n =
		o->netns_name && inode ? o->netns_name(inode, o->netns_arg) : NULL;
	struct pp_sbuf f = {.buf = buf, .len = len};

	if (n)
		return n->name;
	if (!inode)
		return "-";
	pp_sb_u64(&f, inode);
	return buf;
}

static bool told(struct pp_ns_told *t, __u32 inode)
{
	__u32 *grown;

	for (size_t i = 0; i < t->n; i++)
		if (t->inodes[i] == inode)
			return true;
	if (t->n == t->cap) {
		grown = realloc(t->inodes, (t->cap ? t->cap * 2 : 16) * sizeof(*grown));
		if (!grown)
			return true; /* no memory: no legend, rather than one per packet */
		t->inodes = grown;
		t->cap = t->cap ? t->cap * 2 : 16;
	}
	t->inodes[t->n++] = inode;
	return false;
}

static void wstr(struct pp_wbuf *w, const char *s)
{
	pp_wb_write(w, s, strlen(s));
}

static void legend_line(const struct pp_out *o, struct pp_wbuf *w, const struct pp_ns_name *n)
{
	const struct pp_ctr *c = &n->ctr;

	pp_wb_lit(w, "netns ");
	wstr(w, n->name);
	pp_wb_lit(w, " =");
	if (n->host)
		pp_wb_lit(w, " the root namespace");
	if (n->has_ctr && c->pod[0]) {
		pp_wb_lit(w, " pod ");
		wstr(w, c->pod_ns);
		pp_wb_putc(w, '/');
		wstr(w, c->pod);
		pp_wb_putc(w, ',');
	}
	if (n->has_ctr) {
		pp_wb_putc(w, ' ');
		wstr(w, pp_rt_name(c->rt));
		wstr(w, c->sandbox ? " sandbox " : " container ");
		if (c->name[0]) {
			wstr(w, c->name);
			pp_wb_putc(w, ' ');
		}
		pp_wb_write(w, c->id, PP_SHORT_ID);
	} else if (n->netns[0]) {
		pp_wb_lit(w, " ip netns ");
		wstr(w, n->netns);
	}
	if (o->netns_inodes) {
		pp_wb_lit(w, ", inode ");
		pp_wb_done(w, pp_fmt_u64(pp_wb_room(w, PP_FMT_U64), n->inode));
	}
	pp_wb_putc(w, '\n');
}

void pp_out_ns_legend(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p)
{
	__u32 last = 0;

	if (!o->told || !o->netns_name)
		return;
	for (size_t i = 0; i < p->nhops; i++) {
		__u32 inode = p->hops[i].netns;
		const struct pp_ns_name *n;

		if (!inode || inode == last)
			continue;
		last = inode;
		n = o->netns_name(inode, o->netns_arg);
		if (!n || (!n->has_ctr && !o->netns_inodes) || told(o->told, inode))
			continue;
		legend_line(o, w, n);
	}
}

void pp_ns_told_free(struct pp_ns_told *t)
{
	free(t->inodes);
	t->inodes = NULL;
	t->n = t->cap = 0;
}
