// SPDX-License-Identifier: GPL-2.0
/*
 * The shared maps (maps.h): made once with the sizes asked for, handed to
 * the classifier and the probe objects by name, and what the classifier
 * then writes lands in them. Root only: maps are the kernel's.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "suites.h"
#include "filter/classifier.h"
#include "bpf_settings.h" /* the skeleton's rodata */
#include "classifier.skel.h"
#include "kernel_run.h"
#include "bpfobj/maps.h"
#include "maps.skel.h"
#include "pktpath.h"
#include "bpfobj/splice.h"

static struct bpf_map_info map_info(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	ck_assert_int_eq(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	return info;
}

START_TEST(test_sizes)
{
	const struct pp_maps_opts o = {.max_packets = 100, .ring_size = 1 << 16, .stacks = 8};
	struct pp_maps m;

	if (!pp_need_root("maps sizes"))
		return;
	ck_assert_int_eq(pp_maps_create(&m, &o), 0);
	ck_assert_uint_eq(map_info(m.skb_map).max_entries, 100);
	ck_assert_uint_eq(map_info(m.head_map).max_entries, 100);
	ck_assert_uint_eq(map_info(m.path_map).max_entries, 1 << 16);
	ck_assert_uint_eq(map_info(m.stack_map).max_entries, 8);
	ck_assert_uint_eq(map_info(m.state_map).value_size, sizeof(struct pp_state));
	ck_assert_uint_eq(map_info(m.lost_map).max_entries, PP_PROBES_ALL);
	ck_assert_uint_eq(map_info(m.end_lost_map).type, BPF_MAP_TYPE_LRU_HASH);
	pp_maps_destroy(&m);
	ck_assert_ptr_null(m.skel);
}
END_TEST

/* The maps OBJ declares itself (not its .rodata and the like). */
static int own_maps(const struct bpf_object *obj)
{
	const struct bpf_map *map;
	int n = 0;

	bpf_object__for_each_map(map, obj)
	{
		n += !bpf_map__is_internal(map);
	}
	return n;
}

/* Every map the classifier object declares is the shared one of its name. */
START_TEST(test_share_by_name)
{
	const struct pp_maps_opts o = {.max_packets = 64};
	struct classifier *skel;
	struct bpf_map *map;
	struct pp_maps m;
	int shared = 0;

	if (!pp_need_root("maps sharing"))
		return;
	ck_assert_int_eq(pp_maps_create(&m, &o), 0);
	ck_assert_int_eq(pp_splice_register(), 0);
	skel = classifier__open();
	ck_assert_ptr_nonnull(skel);
	ck_assert_int_eq(pp_maps_share(&m, skel->obj), 0);
	bpf_object__for_each_map(map, skel->obj)
	{
		const struct bpf_map *mine =
			bpf_object__find_map_by_name(m.skel->obj, bpf_map__name(map));

		if (bpf_map__is_internal(map))
			continue;
		ck_assert_msg(mine != NULL, "%s", bpf_map__name(map));
		ck_assert_uint_eq(map_info(bpf_map__fd(map)).id, map_info(bpf_map__fd(mine)).id);
		shared++;
	}
	/* All of them: the classifier declares every map of maps.bpf.h. */
	ck_assert_int_eq(shared, own_maps(m.skel->obj));
	ck_assert_int_ge(shared, 7);
	ck_assert_uint_eq(bpf_map__max_entries(skel->maps.skb_map), 64);
	classifier__destroy(skel);
	pp_maps_destroy(&m);
}
END_TEST

/* A UDP/IPv4 frame. */
static const unsigned char udp[60] = {
	0, 1, 2,  3,  4, 5, 6,	 7,  8, 9, 10,	11, 0x08, 0x00, 0x45, 0,    0,	  46,	0, 0,
	0, 0, 64, 17, 0, 0, 198, 18, 0, 1, 198, 18, 1,	  2,	0x04, 0xd2, 0x00, 0x35, 0, 26,
};

/* The classifier's mark is counted in the maps it was given. */
START_TEST(test_classifier_writes_shared)
{
	struct pp_cls_opts o = {.expr = "udp"};
	struct pp_state st;
	struct pp_maps m;
	struct pp_cls cls;
	__u32 zero = 0;
	char err[256];
	int match = 0;

	if (!pp_need_root("maps and the classifier"))
		return;
	ck_assert_int_eq(pp_maps_create(&m, &(struct pp_maps_opts){0}), 0);
	o.maps = &m;
	ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_eq(cls.maps, &m);
	ck_assert_int_eq(pp_cls_run(&cls, udp, sizeof(udp), &match), 0);
	ck_assert_int_eq(match, 1);
	ck_assert_int_eq(bpf_map_lookup_elem(m.state_map, &zero, &st), 0);
	ck_assert_uint_eq(st.marked, 1);
	ck_assert_uint_eq(st.next_id, 1);
	pp_cls_destroy(&cls);
	/* The maps outlive the classifier that was given them. */
	ck_assert_int_eq(bpf_map_lookup_elem(m.state_map, &zero, &st), 0);
	pp_maps_destroy(&m);
}
END_TEST

Suite *maps_suite(void)
{
	Suite *s = suite_create("maps");
	TCase *tc = tcase_create("shared");

	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_share_by_name);
	tcase_add_test(tc, test_classifier_writes_shared);
	suite_add_tcase(s, tc);
	return s;
}
