/* SPDX-License-Identifier: GPL-2.0 */
/* A small file's whole text, for the tables of /proc. */
#ifndef PP_TEXT_FILE_H
#define PP_TEXT_FILE_H

/* PATH's text, NUL-terminated, in *OUT (to free); 0 or -errno. */
int pp_text_file_read(const char *path, char **out);

#endif /* PP_TEXT_FILE_H */
