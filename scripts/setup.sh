#!/usr/bin/env bash
# Installs what the tests and demos need on a fresh Debian machine: a C compiler (on
# Linux, go test -race needs cgo), redis-server and redis-tools (the tests start their
# own redis-server on free loopback ports and drive it with redis-cli and
# redis-benchmark), and chromium (the control plane's dashboard test drives it
# headless).
# Arguments name extra tools to install when missing; only nutcracker (twemproxy,
# which examples/gateway/compare.sh measures against, and whose /usr/sbin path
# the tests of the scripts' sbin lookup need; scripts/test.sh asks for it) is known:
#   scripts/setup.sh nutcracker
# Safe to run again: it installs only what is missing.
set -euo pipefail

# Debian installs nutcracker in /usr/sbin, which is not in the PATH of a user
# other than root: without it, a second run found nutcracker missing again
# and ran sudo apt-get for it (examples/gateway/harness.sh looks there too).
for sbin in /usr/local/sbin /usr/sbin /sbin; do
	case ":$PATH:" in *":$sbin:"*) ;; *) PATH=$PATH:$sbin ;; esac
done

need=()
for extra in "$@"; do
	case $extra in
	nutcracker) command -v nutcracker >/dev/null 2>&1 || need+=(nutcracker) ;;
	*)
		echo "setup: unknown extra tool $extra (known: nutcracker)" >&2
		exit 2
		;;
	esac
done
# cgo needs libc's headers and start files too (libc6-dev), which gcc only
# recommends: compile and link a C program with the compiler go env CC names.
cc=$(go env CC)
printf '#include <stdlib.h>\nint main(void) { return 0; }\n' |
	$cc -x c -o /dev/null - >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# redis-tools holds both: the gateway's tests run redis-cli and redis-benchmark.
for tool in redis-cli redis-benchmark; do
	command -v "$tool" >/dev/null 2>&1 || {
		need+=(redis-tools)
		break
	}
done
[ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ ${#need[@]} -gt 0 ] || exit 0

echo "setup: installing ${need[*]}"
if [ "$(id -u)" -eq 0 ]; then
	sudo=
elif command -v sudo >/dev/null 2>&1; then
	sudo=sudo
else
	echo "setup: not root and no sudo: as root, run apt-get update && apt-get install ${need[*]}" >&2
	exit 1
fi
# LC_ALL=C keeps apt's messages in English for the lock check below.
apt="$sudo env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300"

# failed STEP MESSAGES: shows apt's MESSAGES, then a last line of setup's own
# that says what it could not install, and exits 1. Offline, apt-get update
# only warns ("Failed to fetch") and exits 0, and install then ends, on a
# fresh machine whose lists are empty, on "Unable to locate package", as if
# a name were wrong: a failed download is said to be one.
failed() {
	local hint="see apt-get's messages above"
	[ -z "$2" ] || echo "$2" >&2
	if [[ $out$2 == *"Failed to fetch"* ]]; then
		hint="apt-get could not download (is the network down?): run this again online, or install them by other means"
	fi
	echo "setup: apt-get $1 failed, so ${need[*]} could not be installed: $hint" >&2
	exit 1
}

# install waits up to 5 minutes for dpkg's lock (DPkg::Lock::Timeout), but update
# fails at once when another apt holds the lists' lock, as the daily apt job may on
# a freshly booted machine: try again for as long.
out=
for try in $(seq 60); do
	if out=$($apt update -qq 2>&1); then break; fi
	if [[ $out != *"Could not get lock"* ]] || [ "$try" -eq 60 ]; then
		failed update "$out"
	fi
	[ "$try" -gt 1 ] || echo "setup: another apt holds the lists' lock: waiting up to 5 minutes" >&2
	sleep 5
done
[ -z "$out" ] || echo "$out" >&2
# Only apt's errors are kept (-qq, standard output dropped), to be shown.
err=$($apt install -y -qq "${need[@]}" 2>&1 >/dev/null) || failed install "$err"
[ -z "$err" ] || echo "$err" >&2
