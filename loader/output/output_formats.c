// SPDX-License-Identifier: GPL-2.0
/* The output formats by name: one row each, their ops in their own file. */
#include <string.h>
#include "output.h"

static const struct pp_out_ops *const formats[] = {
	&pp_out_text_ops, /* output_text.c */
	&pp_out_json_ops, /* output_json.c */
};

const struct pp_out_ops *pp_out_format(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}
