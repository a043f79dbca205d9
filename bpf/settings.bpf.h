/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's settings for this object (include/bpf_settings.h): one
 * struct in rodata, each field a constant to the verifier.
 */
#ifndef PP_SETTINGS_BPF_H
#define PP_SETTINGS_BPF_H

#include "bpf_settings.h"

const volatile struct pp_bpf_settings pp_cfg = {};

#endif
