// SPDX-License-Identifier: GPL-2.0
/*
 * Tallies `pktpath --json` output read on stdin, fast enough to sit behind a
 * busy pktpath without slowing it: what was received and what was lost, so
 * that bench/netbench.sh can check that every record is either received or
 * counted as lost. Relies only on what docs/json-schema.md fixes: one
 * object per line, "len" the second key, hops in "hops":[...] followed by
 * "fate", and the closing {"summary":...} line. Key strings cannot occur
 * inside values: the writer escapes every '"' in a string.
 *
 * Usage: json_tally [LEN]   tally packets of length LEN (the flow's) apart
 *                           from the others (e.g. iperf3's control datagrams)
 *
 * Prints one line of key=value: packets (of the flow), other, consumed,
 * dropped, timeout, hops (records received for the flow's packets, marks
 * and ENDs included), lost_hops and mark_lost (what their ENDs and
 * mark-less paths say was lost), other_hops, other_egress (other packets
 * marked at an egress: datagrams that are not the flow's but match the
 * filter, like iperf3's connect datagram), summary_packets, summary_lost,
 * summary_map_full, path_N=COUNT: closed packets of the flow whose hops
 * received plus lost come to N, and at:NAME=COUNT: hops received at each
 * probe, over every packet, as records filed under one packet's id may
 * belong to others (a reused skb address). Set beside pktpath's "lost N
 * records at NAME" and the datagrams sent, they tell whether every record
 * is accounted for.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATH   64
#define MAX_PROBES 64
#define NAME_MAX_  64

struct tally {
	unsigned long long packets, other, consumed, dropped, timeout;
	unsigned long long hops, lost_hops, mark_lost, other_hops, other_egress;
	unsigned long long sum_packets, sum_lost, sum_map_full;
	unsigned long long path[MAX_PATH + 1]; /* [MAX_PATH]: that long or longer */
	bool summary;
	size_t nprobes;
	char probe[MAX_PROBES][NAME_MAX_];
	unsigned long long at[MAX_PROBES];
};

/* Counts one hop at the probe named by the n bytes at name. */
static void count_at(struct tally *t, const char *name, size_t n)
{
	size_t i;

	if (n >= NAME_MAX_)
		n = NAME_MAX_ - 1;
	for (i = 0; i < t->nprobes; i++)
		if (!strncmp(t->probe[i], name, n) && !t->probe[i][n])
			break;
	if (i == t->nprobes) {
		if (i == MAX_PROBES)
			return;
		memcpy(t->probe[i], name, n);
		t->probe[i][n] = '\0';
		t->nprobes++;
	}
	t->at[i]++;
}

/* The number after key in s, 0 if key is absent. */
static unsigned long long num_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static void summary_line(struct tally *t, const char *line)
{
	t->summary = true;
	t->sum_packets = num_after(line, "\"packets\":");
	t->sum_lost = num_after(line, "\"lost\":");
	t->sum_map_full = num_after(line, "\"map_full\":");
}

/* Hops between "hops":[ and the "fate" that follows the array, each counted at its probe. */
static unsigned long long count_hops(struct tally *t, char *line, char **after)
{
	char *p = strstr(line, "\"hops\":["), *end;
	unsigned long long n = 0;

	*after = line;
	if (!p)
		return 0;
	end = strstr(p, "],\"fate\":{");
	if (!end)
		return 0;
	*end = '\0';
	for (p = strstr(p, "{\"func\":\""); p; p = strstr(p + 1, "{\"func\":\"")) {
		const char *name = p + 9, *q = strchr(name, '"');

		if (q)
			count_at(t, name, (size_t)(q - name));
		n++;
	}
	*end = ']';
	*after = end;
	return n;
}

static void packet_line(struct tally *t, char *line, unsigned long long flow_len)
{
	unsigned long long len = num_after(line, "\"len\":"), lost, path, hops;
	bool flow = !flow_len || len == flow_len;
	bool mark_lost;
	char *fate;

	hops = count_hops(t, line, &fate);
	if (!flow) {
		t->other++;
		t->other_hops += hops;
		t->other_egress += strstr(line, "\"dir\":\"egress\"") != NULL;
		return;
	}
	lost = num_after(fate, "\"lost_hops\":");
	mark_lost = strstr(fate, "\"mark_lost\":true") != NULL;
	t->packets++;
	t->hops += hops;
	t->lost_hops += lost;
	t->mark_lost += mark_lost;
	if (strstr(fate, "\"kind\":\"timeout\"")) {
		t->timeout++;
		return;
	}
	if (strstr(fate, "\"kind\":\"dropped\""))
		t->dropped++;
	else
		t->consumed++;
	path = hops + lost + mark_lost;
	t->path[path < MAX_PATH ? path : MAX_PATH]++;
}

int main(int argc, char **argv)
{
	unsigned long long flow_len = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
	struct tally t = {};
	size_t cap = 0;
	char *line = NULL;

	while (getline(&line, &cap, stdin) > 0) {
		if (!strncmp(line, "{\"summary\":", 11))
			summary_line(&t, line);
		else if (line[0] == '{')
			packet_line(&t, line, flow_len);
	}
	free(line);
	printf("packets=%llu other=%llu consumed=%llu dropped=%llu timeout=%llu hops=%llu "
	       "lost_hops=%llu mark_lost=%llu other_hops=%llu other_egress=%llu summary=%d "
	       "summary_packets=%llu summary_lost=%llu summary_map_full=%llu",
	       t.packets, t.other, t.consumed, t.dropped, t.timeout, t.hops, t.lost_hops,
	       t.mark_lost, t.other_hops, t.other_egress, t.summary, t.sum_packets, t.sum_lost,
	       t.sum_map_full);
	for (int i = 0; i <= MAX_PATH; i++)
		if (t.path[i])
			printf(" path_%d=%llu", i, t.path[i]);
	for (size_t i = 0; i < t.nprobes; i++)
		printf(" at:%s=%llu", t.probe[i], t.at[i]);
	putchar('\n');
	/* No summary line: pktpath did not finish its output (it crashed or was killed). */
	return t.summary ? 0 : 1;
}
