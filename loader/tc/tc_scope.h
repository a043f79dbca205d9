/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier on the interfaces of other network namespaces (--netns,
 * --container): each namespace entered in turn (setns(2)), its interfaces
 * chosen and attached there as tc_attach.h does in pktpath's own, and
 * pktpath's namespace entered again. Interfaces are numbered per
 * namespace, and a tcx link or a netlink request names its device by
 * number in the caller's namespace: so the entering.
 */
#ifndef PP_TC_SCOPE_H
#define PP_TC_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include "names/netns_scope.h"
#include "tc/tc_attach.h"

struct pp_scope_tc {
	struct pp_scope_ns ns;
	int fd; /* the namespace, open: setns(2) */
	struct pp_tc tc;
};

struct pp_scope {
	struct pp_scope_tc *v;
	size_t n;
	int self_fd; /* pktpath's own namespace */
};

/*
 * Open the N namespaces of NS (one each: two arguments naming one are one)
 * and choose their interfaces by -i WORDS (tc_attach.h), nothing attached.
 * 0, or -errno with ERR filled: -ENODEV, an interface a namespace lacks.
 */
int pp_scope_tc_open(struct pp_scope *s, const struct pp_scope_ns *ns, size_t n,
		     const char *const *words, int nwords, char *err, size_t errlen);
int pp_scope_tc_attach(struct pp_scope *s, const struct pp_cls *cls, bool tcx, char *err,
		       size_t errlen);
size_t pp_scope_tc_ifaces(const struct pp_scope *s);
size_t pp_scope_tc_clsact(const struct pp_scope *s);
/* Detach (clsact filters need the namespace entered: CAP_SYS_ADMIN), close, forget. */
void pp_scope_tc_free(struct pp_scope *s);

#endif /* PP_TC_SCOPE_H */
