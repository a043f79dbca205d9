// SPDX-License-Identifier: GPL-2.0
/* A cgroup scope's packets and their processes: see scope_owner.h. */
#include "cmd/scope_owner.h"

#include <stdlib.h>
#include <string.h>

#include "names/pid_socks.h"
#include "names/sock_owner.h"

struct pp_scope_owner {
	struct pp_sock_owners *owners;	/* the processes of the scope's sockets */
	struct pp_pid_socks *pid_socks; /* --pid-only: that process's sockets */
	__u32 pid_only;
	__u64 kept_back; /* --pid-only: packets of other sockets, not shown */
};

struct pp_scope_owner *pp_scope_owner_new(__u32 pid_only)
{
	struct pp_scope_owner *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pid_only = pid_only;
	s->owners = pp_sock_owners_new("");
	if (pid_only)
		s->pid_socks = pp_pid_socks_new("", pid_only);
	if (!s->owners || (pid_only && !s->pid_socks)) {
		pp_scope_owner_free(s);
		return NULL;
	}
	return s;
}

void pp_scope_owner_free(struct pp_scope_owner *s)
{
	if (!s)
		return;
	pp_sock_owners_free(s->owners);
	pp_pid_socks_free(s->pid_socks);
	free(s);
}

/* The process that holds the socket scoped mark M names (pp_hop.sock_ino), into O. */
static bool holder(struct pp_scope_owner *s, const struct pp_mark *m, __u64 now_ms,
		   struct pp_sock_owner *o)
{
	return m && m->hop.sock_ino && pp_sock_owner(s->owners, m->hop.sock_ino, now_ms, o);
}

/* The process that made the socket of scoped mark M, as the kernel kept it, into O. */
static bool maker(const struct pp_mark *m, struct pp_sock_owner *o)
{
	if (!m || !m->maker_pid)
		return false;
	*o = (struct pp_sock_owner){.pid = m->maker_pid};
	memcpy(o->comm, m->maker_comm, sizeof(m->maker_comm));
	o->comm[sizeof(o->comm) - 1] = '\0';
	return true;
}

/*
 * While the socket is still open: its holder (if no scan finds it, its
 * maker, so that the replies to come, whose marks carry the inode, are
 * named too), and for --pid-only whether it is the process's (its maker's
 * word, else its fds).
 */
void pp_scope_owner_mark(struct pp_scope_owner *s, const struct pp_mark *m, __u64 now_ms)
{
	struct pp_sock_owner o;

	if (!holder(s, m, now_ms, &o) && maker(m, &o))
		pp_sock_owner_note(s->owners, m->hop.sock_ino, &o);
	if (!s->pid_socks || !m->hop.sock_ino)
		return;
	if (m->maker_pid == s->pid_only)
		pp_pid_socks_note(s->pid_socks, m->hop.sock_ino);
	else
		pp_pid_socks_holds(s->pid_socks, m->hop.sock_ino);
}

/* A listener's accepted connections are made by it too (their storage is cloned). */
bool pp_scope_owner_keep(struct pp_scope_owner *s, const struct pp_packet *p)
{
	bool keep = !s->pid_only ||
		    (p->mark && (p->mark->maker_pid == s->pid_only ||
				 pp_pid_socks_holds(s->pid_socks, p->mark->hop.sock_ino)));

	s->kept_back += !keep;
	return keep;
}

void pp_scope_owner_name(struct pp_scope_owner *s, struct pp_packet *p, __u64 now_ms)
{
	struct pp_sock_owner o, m;

	if (!p->mark)
		return;
	if (!holder(s, p->mark, now_ms, &o)) {
		if (!maker(p->mark, &o))
			return;
		pp_sock_owner_place(s->owners, &o);
	} else if (o.place_kind == PP_PLACE_NONE && maker(p->mark, &m)) {
		/* The holder gone (a forked worker): the socket's maker runs where it was made. */
		pp_sock_owner_place(s->owners, &m);
		o.place_kind = m.place_kind;
		memcpy(o.place, m.place, sizeof(o.place));
	}
	p->owner_pid = o.pid;
	memcpy(p->owner_comm, o.comm, sizeof(p->owner_comm));
	p->owner_kind = o.place_kind;
	memcpy(p->owner_place, o.place, sizeof(p->owner_place));
}

__u64 pp_scope_owner_kept_back(const struct pp_scope_owner *s)
{
	return s->kept_back;
}
