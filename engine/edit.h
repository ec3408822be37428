/*
 * The filter editing handles (filter.c): what struct fk_host's fe_* and
 * se_* members point at.  Declared once here for host.c, which builds the
 * table, and filter.c, which defines them.  Each handle is valid only
 * inside the filter callback that received it; returned names point into
 * the profile's interning arena (valid for the run).
 */
#ifndef FK_EDIT_H
#define FK_EDIT_H

#include "flamekit/plugin.h"

const char *fk_fe_name(const struct fk_frame_edit *e, size_t *len);
int fk_fe_annot(const struct fk_frame_edit *e);
const char *fk_fe_module(const struct fk_frame_edit *e, size_t *len);
int fk_fe_rename(struct fk_frame_edit *e, const char *name, size_t len);
void fk_fe_drop(struct fk_frame_edit *e);
int fk_fe_colour(struct fk_frame_edit *e, const char *colour);
size_t fk_se_depth(const struct fk_sample_edit *e);
const char *fk_se_frame_name(const struct fk_sample_edit *e, size_t i, size_t *len);
int fk_se_frame_annot(const struct fk_sample_edit *e, size_t i);
const char *fk_se_frame_module(const struct fk_sample_edit *e, size_t i, size_t *len);
int fk_se_rename(struct fk_sample_edit *e, size_t i, const char *name, size_t len);
int fk_se_colour(struct fk_sample_edit *e, size_t i, const char *colour);
void fk_se_remove(struct fk_sample_edit *e, size_t i);
void fk_se_truncate(struct fk_sample_edit *e, size_t n);
int fk_se_insert(struct fk_sample_edit *e, size_t i, const char *name, size_t len);
double fk_se_weight(const struct fk_sample_edit *e);
void fk_se_set_weight(struct fk_sample_edit *e, double w);
void fk_se_drop(struct fk_sample_edit *e);
const struct fk_logged_sample *fk_se_meta(const struct fk_sample_edit *e);
const char *fk_se_comm(const struct fk_sample_edit *e, size_t *len);
fk_frame_t fk_se_frame_id(const struct fk_sample_edit *e, size_t i);
void fk_se_remove_range(struct fk_sample_edit *e, size_t i, size_t n);
const char *fk_se_attr(const struct fk_sample_edit *e, const char *key, size_t key_len, size_t *len);
size_t fk_se_attrs(const struct fk_sample_edit *e, const struct fk_attr **attrs);

#endif
