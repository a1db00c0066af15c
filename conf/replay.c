/* SPDX-License-Identifier: BSD-2-Clause */
/* conf/replay: a report.json (or the output directory holding one) as a job's config. */
#include "conf/conf.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPORT_SCHEMA "mrcgen-report/1"

/* True when @s ends in @suffix. */
static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* True when one of @sets overrides @key (or a section holding it). */
static bool sets_name(const char *const *sets, size_t n_sets, const char *key)
{
	for (size_t i = 0; i < n_sets; i++) {
		size_t k = strcspn(sets[i], "=");

		if (k <= strlen(key) && !strncmp(sets[i], key, k) &&
		    (key[k] == '\0' || key[k] == '.'))
			return true;
	}
	return false;
}

/* True when one of @sets overrides @key or anything in it ("faults", "faults[0].at"). */
static bool sets_under(const char *const *sets, size_t n_sets, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = 0; i < n_sets; i++)
		if (!strncmp(sets[i], key, k) && sets[i][k] && strchr("=.[", sets[i][k]))
			return true;
	return false;
}

/*
 * The base RTT a wire run's NSCC started from, in ns, when it was measured or defaulted
 * (not configured): the report's wire.base_rtt_us with wire.base_rtt_source other than
 * "config". 0 when there is none.
 */
static uint64_t report_wire_rtt_ns(json_t *rep)
{
	json_t *w = json_object_get(rep, "wire");
	const char *src = json_string_value(json_object_get(w, "base_rtt_source"));
	json_t *rtt = json_object_get(w, "base_rtt_us");

	if (!json_is_object(w) || !json_is_number(rtt) || (src && !strcmp(src, "config")))
		return 0;
	if (!(json_number_value(rtt) > 0) || json_number_value(rtt) > 1e9)
		return 0;
	return (uint64_t)llround(json_number_value(rtt) * 1e3);
}

/*
 * A wire run's faults as they happened, for its replay on the simulator
 * (docs/replay.md "From the wire to the simulator"): job->faults becomes one `at` fault per
 * entry of the report's fault_timeline[] (in its order), a copy of the configured fault it
 * names with its trigger replaced by the time it fired; a configured fault that never fired
 * is left out.
 * Errors (-EINVAL, -ENOMEM) name the report, the entry and the value.
 */
static int replay_fired(json_t *rep, const char *path, struct conf_job *job, char *err,
	size_t errlen)
{
	json_t *tl = json_object_get(rep, "fault_timeline");
	size_t n = json_array_size(tl);
	struct conf_fault *nf;

	if (!json_is_array(tl)) {
		snprintf(err, errlen, "%s: fault_timeline: an array expected (a wire run's "
			"report replays its faults at the times they fired)", path);
		return -EINVAL;
	}
	nf = calloc(n ? n : 1, sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(tl, i);
		json_t *ix = json_object_get(e, "index"), *at = json_object_get(e, "at_us");
		double us = json_number_value(at);

		if (!json_is_integer(ix) || json_integer_value(ix) < 0 ||
		    (size_t)json_integer_value(ix) >= job->n_faults || !json_is_number(at) ||
		    !(us >= 0 && us <= 1e12)) {
			char *txt = json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY);

			snprintf(err, errlen, "%s: fault_timeline[%zu]: '%s': an index of the "
				"config's %zu faults and an at_us of 0..1e12 expected", path, i,
				txt ? txt : "?", job->n_faults);
			free(txt);
			for (size_t k = 0; k < i; k++)
				free(nf[k].target);
			free(nf);
			return -EINVAL;
		}
		nf[i] = job->faults[json_integer_value(ix)];
		nf[i].target = strdup(nf[i].target);
		nf[i].has_at = true;
		nf[i].has_at_iteration = false;
		nf[i].at_iteration = 0;
		nf[i].at_ps = (uint64_t)llround(us * 1e6);
		if (!nf[i].target) {
			for (size_t k = 0; k < i; k++)
				free(nf[k].target);
			free(nf);
			return -ENOMEM;
		}
	}
	for (size_t k = 0; k < job->n_faults; k++)
		free(job->faults[k].target);
	free(job->faults);
	job->faults = nf;
	job->n_faults = n;
	return 0;
}

/* Loads the config embedded in the report @rep read from @path (conf_load_report()). */
static int load_embedded(json_t *rep, const char *path, const char *const *sets,
	size_t n_sets, conf_check_fn check, struct conf_job *job, char *err, size_t errlen)
{
	const char *schema = json_string_value(json_object_get(rep, "schema"));
	json_t *cfg = json_object_get(rep, "config");
	const char **all = NULL;
	char *name = NULL, *rtt_set = NULL, *src;
	uint64_t rtt_ns;
	int ret;

	if (!schema || strcmp(schema, REPORT_SCHEMA)) {
		snprintf(err, errlen, "%s: not an mrcgen report: no \"schema\": \"%s\"", path,
			REPORT_SCHEMA);
		return -EINVAL;
	}
	if (!json_is_string(cfg) || !json_string_length(cfg)) {
		snprintf(err, errlen, "%s: not an mrcgen report: no \"config\" string", path);
		return -EINVAL;
	}
	/* errors inside the embedded text read "REPORT: config:LINE:COL: key: reason" */
	if (asprintf(&name, "%s: config", path) < 0)
		return -ENOMEM;
	ret = conf_load_string_checked(json_string_value(cfg), json_string_length(cfg), name,
		sets, n_sets, check, job, err, errlen);
	rtt_ns = report_wire_rtt_ns(rep);
	if (!ret && rtt_ns && job->fabric.driver == CONF_DRIVER_SIM && !job->mrc.cc.base_rtt_ps &&
	    !sets_name(sets, n_sets, "mrc.cc.base_rtt")) {
		/* a wire run on the simulator: NSCC starts from the RTT the wire run used; the
		 * user's overrides come after it */
		all = calloc(n_sets + 1, sizeof(*all));
		if (!all || asprintf(&rtt_set, "mrc.cc.base_rtt=%" PRIu64 "ns", rtt_ns) < 0) {
			rtt_set = NULL;
			ret = -ENOMEM;
			goto out;
		}
		all[0] = rtt_set;
		for (size_t i = 0; i < n_sets; i++)
			all[i + 1] = sets[i];
		conf_free(job);
		ret = conf_load_string_checked(json_string_value(cfg), json_string_length(cfg),
			name, all, n_sets + 1, check, job, err, errlen);
	}
	if (!ret && json_is_object(json_object_get(rep, "wire")) &&
	    job->fabric.driver == CONF_DRIVER_SIM && !sets_under(sets, n_sets, "faults")) {
		ret = replay_fired(rep, path, job, err, errlen);
		if (ret)
			conf_free(job);
	}
	if (ret)
		goto out;
	src = strdup(path);	/* config_file of the replay: the report it came from */
	if (!src) {
		conf_free(job);
		ret = -ENOMEM;
		goto out;
	}
	free(job->source);
	job->source = src;
out:
	free(all);
	free(rtt_set);
	free(name);
	return ret;
}

int conf_load_any_checked(const char *path, const char *const *sets, size_t n_sets,
	conf_check_fn check, struct conf_job *job, char *err, size_t errlen)
{
	char *rpath = NULL;
	const char *file = path;
	json_error_t jerr;
	json_t *rep;
	struct stat st;
	bool named_json;
	int ret;

	memset(job, 0, sizeof(*job));
	if (stat(path, &st))	/* the loader names the file and why it cannot be read */
		return conf_load_checked(path, sets, n_sets, check, job, err, errlen);
	if (S_ISDIR(st.st_mode)) {
		if (asprintf(&rpath, "%s%sreport.json", path, ends_with(path, "/") ? "" : "/") < 0)
			return -ENOMEM;
		if (stat(rpath, &st)) {
			snprintf(err, errlen, "%s: a directory without report.json: %s", path,
				strerror(errno));
			free(rpath);
			return -ENOENT;
		}
		file = rpath;
	}
	named_json = file != path || ends_with(path, ".json");
	if (!named_json && !S_ISREG(st.st_mode))	/* a pipe is read once: it is YAML */
		return conf_load_checked(path, sets, n_sets, check, job, err, errlen);
	rep = json_load_file(file, JSON_REJECT_DUPLICATES, &jerr);
	if (!named_json && !(json_is_object(rep) && json_object_get(rep, "schema"))) {
		/* a YAML config (JSON without "schema" is YAML too: "{}" gives the defaults) */
		json_decref(rep);
		return conf_load_checked(path, sets, n_sets, check, job, err, errlen);
	}
	if (!rep) {
		if (jerr.line > 0)
			snprintf(err, errlen, "%s:%d:%d: not an mrcgen report: %s", file,
				jerr.line, jerr.column, jerr.text);
		else
			snprintf(err, errlen, "%s: not an mrcgen report: %s", file, jerr.text);
		free(rpath);
		return -EINVAL;
	}
	if (!json_is_object(rep)) {
		snprintf(err, errlen, "%s: not an mrcgen report: not a JSON object", file);
		ret = -EINVAL;
	} else {
		ret = load_embedded(rep, file, sets, n_sets, check, job, err, errlen);
	}
	if (ret == -ENOMEM && errlen)
		snprintf(err, errlen, "%s: load: out of memory", file);
	json_decref(rep);
	free(rpath);
	return ret;
}
