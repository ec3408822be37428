/*
 * The plugin loader: a thin libltdl wrapper.  Every module file in the
 * search path is opened with lt_dlopenext, asked for its one entry symbol,
 * and its descriptor checked (magic, ABI major, kind, size, name, required
 * callbacks) before a copy of it joins the registry.  A module that fails
 * any check is refused with one sentence naming the file, the problem and
 * the fix; the other plugins keep working.
 */
#include <dirent.h>
#include <errno.h>
#include <ltdl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fk.h"
#include "vector/fkvector.h"

#ifndef FK_PKGLIBDIR
#define FK_PKGLIBDIR "/usr/local/lib/flamekit"
#endif

static int ltdl_users;

const char *fk_kind_name(int kind)
{
	switch (kind) {
	case FK_PLUGIN_INPUT: return "input";
	case FK_PLUGIN_FILTER: return "filter";
	case FK_PLUGIN_OUTPUT: return "output";
	}
	return "unknown";
}

static size_t descriptor_size(int kind)
{
	switch (kind) {
	case FK_PLUGIN_INPUT: return sizeof(struct fk_input_plugin);
	case FK_PLUGIN_FILTER: return sizeof(struct fk_filter_plugin);
	case FK_PLUGIN_OUTPUT: return sizeof(struct fk_output_plugin);
	}
	return 0;
}

int fk_registry_init(struct fk_registry *r)
{
	memset(r, 0, sizeof *r);
	if (ltdl_users++ == 0 && lt_dlinit() != 0) {
		fk_log(FK_LOG_ERROR, "cannot initialise libltdl: %s", lt_dlerror());
		ltdl_users--;
		return FK_ERR_PLUGIN;
	}
	return 0;
}

void fk_registry_free(struct fk_registry *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct fk_plugin *pl = r->v[i];
		if (pl->handle && !r->keep_loaded)
			lt_dlclose(pl->handle);
		fk_free(pl->path);
		fk_free(pl->prefix);
		fk_free(pl->own_options);
		fk_free(pl->optflags);
		fk_free(pl);
	}
	for (size_t i = 0; i < r->ndirs; i++)
		fk_free(r->dirs[i]);
	fk_free(r->v);
	fk_free(r->dirs);
	if (ltdl_users > 0 && --ltdl_users == 0 && !r->keep_loaded)
		lt_dlexit();
	memset(r, 0, sizeof *r);
}

int fk_registry_add_dir(struct fk_registry *r, const char *dir)
{
	char **v = fk_realloc(r->dirs, (r->ndirs + 1) * sizeof *v);

	if (!v)
		return FK_ERR_NOMEM;
	r->dirs = v;
	if (!(v[r->ndirs] = fk_strdup(dir)))
		return FK_ERR_NOMEM;
	r->ndirs++;
	return 0;
}

const struct fk_plugin *fk_registry_find(const struct fk_registry *r, int kind, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if ((int)r->v[i]->d.h.kind == kind && strcmp(r->v[i]->d.h.name, name) == 0)
			return r->v[i];
	return NULL;
}

static int refuse(struct fk_registry *r, lt_dlhandle h, const char *path, const char *fmt, ...)
	FK_PRINTF(4, 5);

static int refuse(struct fk_registry *r, lt_dlhandle h, const char *path, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (h) {
		/* name the file that was actually opened (.so, not the .la stem) */
		const lt_dlinfo *info = lt_dlgetinfo(h);
		if (info && info->filename)
			path = info->filename;
	}
	fk_log(FK_LOG_WARN, "%s: plugin refused: %s", path, msg);
	if (h)
		lt_dlclose(h);
	r->refused++;
	return FK_ERR_PLUGIN;
}

static bool valid_name(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

/* The checks of a copied descriptor: the callbacks its kind needs, its
 * flags, its option table.  0, FK_ERR_NOMEM, or FK_ERR_PLUGIN with one
 * sentence in why. */
static int check_copy(const struct fk_plugin *pl, char *why, size_t cap)
{
	const struct fk_plugin_header *hd = &pl->d.h;
	const char *kind = fk_kind_name((int)hd->kind);
	char opt[512];
	int rc;

	if ((hd->kind == FK_PLUGIN_INPUT && !fk_plugin_has(pl, FK_CB_PARSE)) ||
	    (hd->kind == FK_PLUGIN_OUTPUT && !fk_plugin_has(pl, FK_CB_RENDER)) ||
	    (hd->kind == FK_PLUGIN_FILTER && !fk_plugin_has(pl, FK_CB_FRAME) &&
	     !fk_plugin_has(pl, FK_CB_SAMPLE))) {
		snprintf(why, cap, "the %s plugin \"%s\" has no %s callback; set it in the descriptor "
		         "(or register it with the FLAMEKIT_REGISTER_* macro of its kind)", kind, hd->name,
		         hd->kind == FK_PLUGIN_INPUT ? "parse" : hd->kind == FK_PLUGIN_OUTPUT ? "render" :
		         "frame or sample");
		return FK_ERR_PLUGIN;
	}
	/* An input descriptor registered as an output puts its probe pointer
	 * where `needs` lies: the one field a wrong kind gives away. */
	if (hd->kind == FK_PLUGIN_OUTPUT &&
	    (fk_output_needs(pl) & ~(unsigned)FK_OUTPUT_NEEDS_SAMPLES)) {
		snprintf(why, cap, "the output plugin \"%s\" sets unknown needs flags 0x%x, so its "
		         "descriptor is not an output's; register a struct fk_output_plugin with "
		         "FLAMEKIT_REGISTER_OUTPUT", hd->name, fk_output_needs(pl));
		return FK_ERR_PLUGIN;
	}
	if (hd->kind == FK_PLUGIN_INPUT && (fk_input_demangle(pl) < FK_DEMANGLE_NO ||
	                                   fk_input_demangle(pl) > FK_DEMANGLE_SHORT)) {
		snprintf(why, cap, "the input plugin \"%s\" sets an unknown demangle default %d; use "
		         "FK_DEMANGLE_NO, FK_DEMANGLE_FULL or FK_DEMANGLE_SHORT", hd->name,
		         fk_input_demangle(pl));
		return FK_ERR_PLUGIN;
	}
	if ((rc = fk_options_validate(pl, opt, sizeof opt)) == FK_ERR_PLUGIN)
		snprintf(why, cap, "the %s plugin \"%s\": %s", kind, hd->name, opt);
	return rc;
}

/* Check a descriptor and add a copy of it to the registry.  h is the
 * module it came from (closed on refusal), or NULL for a plugin compiled
 * into the program; path names it in messages. */
static int adopt(struct fk_registry *r, lt_dlhandle h, const char *path,
                 const struct fk_plugin_header *hd)
{
	struct fk_plugin *pl = NULL, **v;
	const struct fk_plugin *other;
	const lt_dlinfo *info;
	size_t ours, copy;
	char why[1024];
	int rc;

	if (hd->magic != FK_PLUGIN_MAGIC)
		return refuse(r, h, path, "wrong magic 0x%08x (expected 0x%08x); it was not built with "
		              "<flamekit/plugin.h>'s FLAMEKIT_REGISTER_* macro", hd->magic, FK_PLUGIN_MAGIC);
	if (hd->abi_major != FK_ABI_MAJOR)
		return refuse(r, h, path, "built for plugin ABI %u.%u, but this flamekit speaks ABI "
		              "%d.%d; rebuild the plugin against this flamekit's <flamekit/plugin.h> "
		              "(pkg-config --cflags flamekit-plugin)", hd->abi_major, hd->abi_minor,
		              FK_ABI_MAJOR, FK_ABI_MINOR);
	ours = descriptor_size((int)hd->kind);
	if (!ours)
		return refuse(r, h, path, "unknown plugin kind %u; use FLAMEKIT_REGISTER_INPUT, "
		              "_FILTER or _OUTPUT", hd->kind);
	if (hd->struct_size < sizeof(struct fk_plugin_header))
		return refuse(r, h, path, "descriptor size %u is smaller than the common header; "
		              "rebuild it with FLAMEKIT_REGISTER_*", hd->struct_size);
	if (!valid_name(hd->name))
		return refuse(r, h, path, "plugin name \"%s\" is not a lower-case word (a-z, 0-9, "
		              "'-', '_'); fix .h.name", hd->name ? hd->name : "(null)");
	other = fk_registry_find(r, (int)hd->kind, hd->name);
	if (other)
		return refuse(r, h, path, "%s %s plugin named \"%s\" is already loaded from %s; "
		              "remove one of the two modules or rename this one",
		              hd->kind == FK_PLUGIN_FILTER ? "a" : "an", fk_kind_name((int)hd->kind),
		              hd->name, other->path);
	rc = FK_ERR_NOMEM;
	if (!(pl = fk_calloc(1, sizeof *pl)))
		goto out;
	copy = hd->struct_size < ours ? hd->struct_size : ours;
	memcpy(&pl->d, hd, copy); /* the rest stays zero: absent callbacks */
	pl->d.h.struct_size = (uint32_t)copy;
	pl->handle = h;
	info = h ? lt_dlgetinfo(h) : NULL;
	pl->path = fk_strdup(info && info->filename ? info->filename : path);
	pl->prefix = fk_malloc(strlen(hd->name) + 16);
	if (!pl->path || !pl->prefix)
		goto out;
	sprintf(pl->prefix, "[%s:%s] ", fk_kind_name((int)hd->kind), hd->name);
	{
		char opt[512];
		if ((rc = fk_options_adopt(pl, opt, sizeof opt)) == FK_ERR_PLUGIN)
			snprintf(why, sizeof why, "the %s plugin \"%s\": %s", fk_kind_name((int)hd->kind),
			         hd->name, opt);
		if (rc < 0)
			goto out;
	}
	if ((rc = check_copy(pl, why, sizeof why)) < 0)
		goto out;
	rc = FK_ERR_NOMEM;
	if (!(v = fk_realloc(r->v, (r->n + 1) * sizeof *v)))
		goto out;
	r->v = v;
	r->v[r->n++] = pl;
	return 0;
out:
	if (pl) {
		fk_free(pl->path);
		fk_free(pl->prefix);
		fk_free(pl->own_options);
		fk_free(pl->optflags);
		fk_free(pl);
	}
	if (rc == FK_ERR_PLUGIN)
		return refuse(r, h, path, "%s", why); /* closes h */
	if (h)
		lt_dlclose(h);
	return rc;
}

int fk_registry_load(struct fk_registry *r, const char *path)
{
	lt_dlhandle h;
	fk_plugin_init_fn init;
	const struct fk_plugin_header *hd;

	h = lt_dlopenext(path);
	if (!h)
		return refuse(r, NULL, path, "cannot load it (%s); check that it was built as a "
		              "libtool module against this system's libraries", lt_dlerror());
	init = (fk_plugin_init_fn)(uintptr_t)lt_dlsym(h, "flamekit_plugin_init");
	if (!init)
		return refuse(r, h, path, "no flamekit_plugin_init symbol (%s); register the plugin "
		              "with FLAMEKIT_REGISTER_INPUT, _FILTER or _OUTPUT from <flamekit/plugin.h>",
		              lt_dlerror());
	hd = fk_call_init(init);
	if (!hd)
		return refuse(r, h, path, "flamekit_plugin_init returned NULL; it must return the "
		              "descriptor that FLAMEKIT_REGISTER_* fills");
	return adopt(r, h, path, hd);
}

int fk_registry_add_builtin(struct fk_registry *r, const struct fk_plugin_header *hd,
                            const char *name)
{
	if (!hd)
		return refuse(r, NULL, name, "no descriptor");
	return adopt(r, NULL, name, hd);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Module names (fk_malloc'd, owned by the vector's holder). */
FK_VECTOR(strv, char *);

static void strv_free(struct strv *v)
{
	for (size_t i = 0; i < v->len; i++)
		fk_free(v->ptr[i]);
	strv_reset(v, fk_free);
}

static bool seen_base(const struct strv *seen, const char *base)
{
	for (size_t i = 0; i < seen->len; i++)
		if (strcmp(seen->ptr[i], base) == 0)
			return true;
	return false;
}

/* Load the modules of one directory, in name order, skipping a module file
 * name an earlier directory already provided (it shadows this one). */
static int load_dir(struct fk_registry *r, const char *dir, struct strv *seen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strv names = { 0 };
	int rc = 0;

	if (!d)
		return 0; /* a missing directory in the path is not an error */
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		const char *ext = NULL;
		if (l > 3 && strcmp(e->d_name + l - 3, ".la") == 0)
			ext = e->d_name + l - 3;
		else if (l > 3 && strcmp(e->d_name + l - 3, ".so") == 0)
			ext = e->d_name + l - 3;
		if (!ext || e->d_name[0] == '.')
			continue;
		char *base = fk_strndup(e->d_name, (size_t)(ext - e->d_name));
		if (!base || strv_append(&names, base, fk_realloc) < 0) {
			fk_free(base);
			rc = FK_ERR_NOMEM;
			break;
		}
	}
	closedir(d);
	if (names.len > 1)
		qsort(names.ptr, names.len, sizeof *names.ptr, cmp_str);
	for (size_t i = 0; i < names.len && rc == 0; i++) {
		const char *name = names.ptr[i];
		if ((i > 0 && strcmp(name, names.ptr[i - 1]) == 0) || seen_base(seen, name))
			continue;
		char *path = fk_malloc(strlen(dir) + strlen(name) + 2);
		char *copy = path ? fk_strdup(name) : NULL;
		if (!copy || strv_append(seen, copy, fk_realloc) < 0) {
			fk_free(path);
			fk_free(copy);
			rc = FK_ERR_NOMEM;
			break;
		}
		sprintf(path, "%s/%s", dir, name);
		if (fk_registry_load(r, path) == FK_ERR_NOMEM)
			rc = FK_ERR_NOMEM;
		fk_free(path);
	}
	strv_free(&names);
	return rc;
}

int fk_registry_load_all(struct fk_registry *r)
{
	const char *env = getenv("FLAMEKIT_PLUGIN_PATH");
	struct strv seen = { 0 };
	size_t i;
	int rc = 0;

	for (i = 0; i < r->ndirs && rc == 0; i++)
		rc = load_dir(r, r->dirs[i], &seen);
	if (env && rc == 0) {
		/* Like MANPATH: the listed directories replace the default one;
		 * an empty element (a leading, trailing or doubled ':') stands
		 * for it. */
		const char *p = env;
		for (;;) {
			const char *colon = strchr(p, ':');
			size_t n = colon ? (size_t)(colon - p) : strlen(p);
			char *dir = n ? fk_strndup(p, n) : fk_strdup(FK_PKGLIBDIR);
			if (!dir) {
				rc = FK_ERR_NOMEM;
				break;
			}
			rc = load_dir(r, dir, &seen);
			fk_free(dir);
			if (rc < 0 || !colon)
				break;
			p = colon + 1;
		}
	} else if (rc == 0) {
#ifdef FK_BUILD_PLUGINDIR
		/* The uninstalled flamekit (the binary the build made, still in
		 * its build tree, FK_BUILD_BINDIR) uses the plugins built beside
		 * it; an installed copy of the same binary does not. */
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n > 0) {
			char *slash;
			exe[n] = '\0';
			if ((slash = strrchr(exe, '/')) && (*slash = '\0', strcmp(exe, FK_BUILD_BINDIR) == 0))
				rc = load_dir(r, FK_BUILD_PLUGINDIR, &seen);
		}
#endif
		if (rc == 0)
			rc = load_dir(r, FK_PKGLIBDIR, &seen);
	}
	strv_free(&seen);
	return rc;
}
