// SPDX-License-Identifier: GPL-2.0
/*
 * The output formats, one row each: a format's functions live in its own
 * file (output_text.c, output_json.c; output_summary.c for --summary).
 */
#include <string.h>
#include "output/output.h"
#include "output/output_summary.h"

static const struct pp_out_ops formats[] = {
	{
		.name = "text",
		.begin = pp_out_text_header, /* the hop lines' columns */
		.packet = pp_out_text,
		.summary = pp_out_summary_text,
		.totals = pp_out_totals_text,
	},
	{
		.name = "json",
		.machine = true,
		.packet = pp_out_json,
		.summary = pp_out_summary_json,
		.totals = pp_out_totals_json,
	},
};

const struct pp_out_ops *pp_out_format(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}
