#!/bin/sh
# Starts the jump host's sshd: the account from JUMP_USERNAME / JUMP_PASSWORD, fresh host keys,
# and PermitOpen listing the only places it relays to: the device by name and every emulated
# device of the fleet (DEVICE_FLEET_SIZE addresses from DEVICE_FLEET_ADDRESSES, device k at the
# block's address + k), on their SSH and NETCONF ports.
set -eu

: "${JUMP_USERNAME:?JUMP_USERNAME is not set: run make env}"
: "${JUMP_PASSWORD:?JUMP_PASSWORD is not set: run make env}"
device_name=${JUMP_DEVICE_NAME:-device}
device_ports=${JUMP_DEVICE_PORTS:-22 830}
fleet_size=${DEVICE_FLEET_SIZE:-1}
fleet_block=${DEVICE_FLEET_ADDRESSES:-}

case "$JUMP_USERNAME" in
  root | *[!a-z0-9_-]*) echo "JUMP_USERNAME must be lower-case letters, digits, - or _ and not root" >&2; exit 2 ;;
esac

ssh-keygen -A >/dev/null
if ! id "$JUMP_USERNAME" >/dev/null 2>&1; then
  useradd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$JUMP_USERNAME"
fi
printf '%s:%s\n' "$JUMP_USERNAME" "$JUMP_PASSWORD" | chpasswd

if dpkg --compare-versions "$(dpkg-query -W -f '${Version}' openssh-server)" ge 1:9.8; then
  echo 'PerSourcePenalties no' >/etc/ssh/sshd_config.d/penalties.conf
fi

hosts=$device_name
if [ -n "$fleet_block" ]; then
  base=${fleet_block%/*}
  prefix=${base%.*}
  last=${base##*.}
  k=1
  while [ "$k" -le "$fleet_size" ]; do
    octet=$((last + k))
    if [ "$octet" -gt 254 ]; then
      echo "DEVICE_FLEET_ADDRESSES=$fleet_block cannot hold $fleet_size devices" >&2
      exit 2
    fi
    hosts="$hosts $prefix.$octet"
    k=$((k + 1))
  done
fi
permit=""
for host in $hosts; do
  for port in $device_ports; do
    permit="$permit $host:$port"
  done
done
echo "PermitOpen$permit" >/etc/ssh/sshd_config.d/permitopen.conf

mkdir -p /run/sshd
/usr/sbin/sshd -t
exec /usr/sbin/sshd -D -e
