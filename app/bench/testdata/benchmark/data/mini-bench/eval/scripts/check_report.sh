#!/bin/sh
# check_report.sh DIR: passes when DIR holds a JSON report named
# YYYYMMDD_<name>.json that names its owner.
dir="$1"
for f in "$dir"/[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]_*.json; do
	[ -f "$f" ] || continue
	if grep -q '"owner"' "$f"; then
		echo "OK: $f"
		exit 0
	fi
done
echo "FAIL: no dated report naming its owner in $dir"
exit 1
