#!/usr/bin/env bash
# Runs the device integration tests or benchmark in the real-client image against freshly started
# device containers on a private docker network; everything is removed afterwards.
#   tests/integration/device/run.sh test [pytest args...]   two devices (cisco_iosxe base:1.1; $DEVICE10_PLATFORM base:1.0 only),
#                                               a fleet: one container, $FLEET_SIZE emulated devices
#                                               whose crypto profiles differ ($FLEET_CRYPTO), and a device
#                                               holding one key exchange and TLS group ($HELD_KEX, $HELD_TLS_GROUP)
#   tests/integration/device/run.sh bench                   one device (memory limit BENCH_DEVICE_MEMORY); prints the figures
#   tests/integration/device/run.sh fleet-bench             a fleet of one and a fleet of $FLEET_SIZE (memory limit
#                                               BENCH_FLEET_MEMORY); prints the figures
set -euo pipefail
mode=${1:?usage: run.sh test|bench|fleet-bench [args...]}; shift
here=$(cd "$(dirname "$0")" && pwd)
prefix=${DEVICE_TEST_PREFIX:-transport-lab-device-test}-$mode
image=${DEVICE_TEST_IMAGE:-transport-lab/device:dev}
clients=${DEVICE_CLIENTS_IMAGE:-transport-lab/device-clients:dev}
netem=${NETEM_IMAGE:-transport-lab/netem:dev}
net=${DEVICE_TEST_NET:-198.18.110}
fleet_size=${FLEET_SIZE:-3}
[[ $mode == fleet-bench ]] && fleet_size=${FLEET_SIZE:-100}
platform10=${DEVICE10_PLATFORM:-arista_eos}
# The test fleet's devices offer different algorithms: each address must negotiate its own.
fleet_crypto=${FLEET_CRYPTO:-2:modern,3:arista_eos}
# A crypto sweep's step on a fourth device (cisco_iosxe): one key exchange and one TLS group held.
held_kex=${HELD_KEX:-diffie-hellman-group14-sha256}
held_tls_group=${HELD_TLS_GROUP:-prime256v1}
password=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
# The HTTP/3 server's version the device must report: the one emulator/go.mod pins.
quic_go_version=$(awk '$1 == "github.com/quic-go/quic-go" { print $2 }' "$here/../../../emulator/go.mod")
# The gNMI server's modules, likewise.
gnmi_version=$(awk '$1 == "github.com/openconfig/gnmi" { print $2 }' "$here/../../../emulator/go.mod")
grpc_version=$(awk '$1 == "google.golang.org/grpc" { print $2 }' "$here/../../../emulator/go.mod")

containers=()
devices=()
cleanup() {
    docker rm -f "${containers[@]}" >/dev/null 2>&1 || true
    docker network rm "$prefix" >/dev/null 2>&1 || true
}
trap cleanup EXIT
cleanup
# As compose's lab network: containers in the lower half, the fleet's addresses in the upper.
docker network create --subnet "$net.0/24" --ip-range "$net.0/25" "$prefix" >/dev/null

start_device() { # name alias hostname extra-args...
    local name=$prefix-$1 alias=$2 hostname=$3; shift 3
    containers+=("$name")
    devices+=("$name")
    docker run -d --name "$name" --network "$prefix" --network-alias "$alias" --hostname "$hostname" \
        -e DEVICE_USERNAME=labops -e DEVICE_PASSWORD="$password" -e DEVICE_HOSTNAME="$hostname" "$@" "$image" >/dev/null
}

# The bench's device gets BENCH_DEVICE_MEMORY (default 3g: 500 held SSH sessions need ~2 GiB).
memory=1g
[[ $mode == bench ]] && memory=${BENCH_DEVICE_MEMORY:-3g}
start_device device device lab-r1 --memory "$memory"
[[ $mode == test ]] && start_device device10 device10 lab-r2 -e DEVICE_PLATFORM="$platform10" -e DEVICE_NETCONF_BASE=1.0
[[ $mode == test ]] && start_device held held lab-r4 \
    -e DEVICE_CRYPTO_KEX="$held_kex" -e DEVICE_CRYPTO_TLS_GROUP="$held_tls_group"
if [[ $mode == test || $mode == fleet-bench ]]; then
    fleet=(-e DEVICE_FLEET_SIZE="$fleet_size" -e DEVICE_FLEET_ADDRESSES="$net.128/25")
    # A held SSH session costs ~4 MiB (emulator/README.md): 1000 of them need ~4 GiB.
    fleet_memory=1g
    [[ $mode == fleet-bench ]] && fleet_memory=${BENCH_FLEET_MEMORY:-6g}
    crypto=()
    # An sshd per profile, bound to its devices' addresses before the sidecar adds them.
    [[ $mode == test ]] && crypto=(-e DEVICE_FLEET_CRYPTO="$fleet_crypto" --sysctl net.ipv4.ip_nonlocal_bind=1)
    start_device fleet fleet fleet-r1 --memory "$fleet_memory" "${fleet[@]}" "${crypto[@]}"
    # The sidecar that puts the fleet's addresses on the shared interface, as in compose.
    containers+=("$prefix-fleet-netem")
    docker run -d --name "$prefix-fleet-netem" --network "container:$prefix-fleet" \
        --cap-add NET_ADMIN --cap-add SYS_NICE -e NETEM_PROFILE=local "${fleet[@]}" "$netem" >/dev/null
fi
for c in "${devices[@]}"; do
    for i in $(seq 60); do
        docker exec "$c" device healthcheck -timeout 2s >/dev/null 2>&1 && break
        if [[ $i == 60 ]]; then docker logs "$c"; exit 1; fi
        sleep 1
    done
done

run_clients() {
    docker run --rm --network "$prefix" -v "$here:/tests:ro" -e DEVICE_USERNAME=labops -e DEVICE_PASSWORD="$password" \
        -e DEVICE10_PLATFORM="$platform10" -e FLEET_SIZE="$fleet_size" -e FLEET_ADDRESSES="$net.128/25" \
        -e FLEET_CRYPTO="$fleet_crypto" -e HELD_KEX="$held_kex" -e HELD_TLS_GROUP="$held_tls_group" \
        -e QUIC_GO_VERSION="$quic_go_version" -e GNMI_VERSION="$gnmi_version" -e GRPC_VERSION="$grpc_version" \
        --ulimit nofile=8192:8192 "$@"
}
status=0
case $mode in
    test)  run_clients "$clients" -v "$@" /tests || status=$? ;;
    bench) run_clients -e BENCH_SESSIONS="${BENCH_SESSIONS:-500}" -e BENCH_SECONDS="${BENCH_SECONDS:-10}" \
               --entrypoint python3 "$clients" /tests/bench_device.py || status=$? ;;
    fleet-bench) run_clients -e BENCH_SESSIONS="${BENCH_SESSIONS:-1000}" -e BENCH_SECONDS="${BENCH_SECONDS:-10}" \
               --entrypoint python3 "$clients" /tests/bench_fleet.py || status=$? ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
if [[ $status -ne 0 ]]; then docker logs --tail=60 "$prefix-device" 2>&1; fi

# Nothing the devices logged (sshd, nginx, the device daemon) may carry a credential: neither the
# password nor a Basic token, good (the tests' own) or bad (foo:bar, sent by the 401 test).
if [[ $mode == test ]]; then
    for c in "${containers[@]}"; do
        for secret in "$password" "$(printf 'labops:%s' "$password" | base64)" "Zm9vOmJhcg==" "Basic "; do
            if docker logs "$c" 2>&1 | grep -qF -- "$secret"; then
                echo "FAIL: $c logged a credential (${secret:0:6}...)"; status=1
            fi
        done
    done
    [[ $status -eq 0 ]] && echo "PASS: no credential in the device logs"
    # nginx warns when it spools an upstream response to disk; /bulk/ must stream (nginx.conf).
    if docker logs "$prefix-device" 2>&1 | grep -F "buffered to a temporary file"; then
        echo "FAIL: nginx spooled a response to a temporary file"; status=1
    fi
fi
exit $status
