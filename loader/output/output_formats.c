// SPDX-License-Identifier: GPL-2.0
/*
 * The output formats: each format's file (output_text.c, output_json.c)
 * defines its row, pp_out_format_NAME; loader/CMakeLists.txt lists them in
 * output/formats.inc, so a new format is its file alone.
 */
#include <string.h>
#include "output/output.h"

#define PP_OUT_FORMAT(name, NAME) extern const struct pp_out_ops pp_out_format_##name;
#include "output/formats.inc"
#undef PP_OUT_FORMAT

static const struct pp_out_ops *const formats[] = {
#define PP_OUT_FORMAT(name, NAME) &pp_out_format_##name,
#include "output/formats.inc"
#undef PP_OUT_FORMAT
};

const struct pp_out_ops *pp_out_format(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}
