# SPDX-License-Identifier: BSD-2-Clause
# schema.tcl: validation of mrcgen's JSON outputs against their JSON Schemas
# (docs/schema/NAME-v1.schema.json, draft 2020-12) with the real validator, python3's
# jsonschema (Debian python3-jsonschema, in the Makefile's DEPS_TEST).

# The schema file of output NAME (report, paths).
proc schema_path {name} {
	return [file join $::top docs schema $name-v1.schema.json]
}

# schema_errors NAME FILE: validates the JSON document in FILE against schema NAME (the
# schema itself is checked against the draft's metaschema first). Returns "" when valid,
# else the first errors, one a line ("path: message"). Skips the test when python3 or its
# jsonschema module is missing.
proc schema_errors {name file} {
	set py {
import json, sys
try:
    import jsonschema
except ImportError:
    print("SKIP: python3 jsonschema module missing (apt-get install python3-jsonschema)")
    sys.exit(3)
with open(sys.argv[1]) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
with open(sys.argv[2]) as f:
    doc = json.load(f)
v = jsonschema.Draft202012Validator(schema)
errs = sorted(v.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
for e in errs[:8]:
    print("/".join(str(p) for p in e.absolute_path) or "(root)", ":", e.message[:300])
sys.exit(1 if errs else 0)
}
	if {[auto_execok python3] eq ""} {
		skip "no python3 in PATH"
	}
	set rc [catch {exec python3 -c $py [schema_path $name] $file 2>@1} out opts]
	if {$rc == 0} {
		return ""
	}
	set code [lindex [dict get $opts -errorcode] 2]
	if {[lindex [dict get $opts -errorcode] 0] eq "CHILDSTATUS" && $code == 3} {
		skip [string range $out 6 end]
	}
	if {[string trim $out] eq ""} {
		return "validator failed: [dict get $opts -errorcode]"
	}
	return $out
}

# assert_schema NAME FILE ?MSG?: fails the test unless FILE validates against schema NAME.
proc assert_schema {name file {msg ""}} {
	set errs [schema_errors $name $file]
	if {$errs ne ""} {
		::harness::assert_failed "$file does not match [file tail [schema_path $name]]:\n$errs" \
			$msg
	}
}

# Whether the validator can run here (python3 with jsonschema); asked once per runner.
proc schema_available {} {
	if {![info exists ::schema_available]} {
		set ::schema_available [expr {[auto_execok python3] ne "" &&
			![catch {exec python3 -c "import jsonschema" 2>@1}]}]
	}
	return $::schema_available
}
