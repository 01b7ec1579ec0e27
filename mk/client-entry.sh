#!/bin/bash
# Entry point of `make client-shell` and `make client-run` (mk/client.mk): a shell, or one
# command, in the bench-runner image on the lab network, as the caller's uid.
#
# Stage 1 runs as root holding only SETUID, SETGID and SETPCAP: it gives CLIENT_UID a passwd
# entry (OpenSSH's ssh and Ansible refuse to run without one) and an ssh config for `device`,
# then drops to that uid with no capabilities, an empty bounding set and no_new_privs.
# Stage 2 runs $CLIENT_CMD in /work, or an interactive shell when it is empty.
set -euo pipefail

if [[ "${1:-}" != --as-user ]]; then
  uid=${CLIENT_UID:-0} gid=${CLIENT_GID:-0}
  if [[ $uid != 0 ]]; then
    grep -q "^[^:]*:[^:]*:$gid:" /etc/group || echo "labclient:x:$gid:" >>/etc/group
    grep -q "^[^:]*:[^:]*:$uid:" /etc/passwd \
      || echo "labclient:x:$uid:$gid:Transport Lab client:/tmp/home:/bin/bash" >>/etc/passwd
  fi
  # System-wide: ssh finds ~/.ssh through the passwd entry, not $HOME. The device's host keys
  # are generated per lab (device-state volume), so they are not pinned.
  cat >/etc/ssh/ssh_config.d/lab-device.conf <<EOF
Host device
  User ${DEVICE_USERNAME}
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
EOF
  exec setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --ambient-caps=-all \
    --bounding-set=-all --no-new-privs -- "$0" --as-user
fi

export HOME=/tmp/home
USER=$(id -un) && export USER LOGNAME=$USER
mkdir -p "$HOME"
# sshpass -e reads the password from SSHPASS, as the runner's OpenSSH client does.
export SSHPASS=${DEVICE_PASSWORD}
# Like the ssh config above, for Ansible where an image of your own has it.
export ANSIBLE_HOST_KEY_CHECKING=${ANSIBLE_HOST_KEY_CHECKING:-False}
cd /work

if [[ -n "${CLIENT_CMD:-}" ]]; then
  exec bash -c "$CLIENT_CMD"
fi

profile=$(python3 - <<'EOF' 2>/dev/null || echo "unknown (netem API not answering)"
import json, os, urllib.request
p = json.load(urllib.request.urlopen(os.environ["NETEM_URL"] + "/profile", timeout=3))
print(f"{p['profile']['name']} ({p['profile']['rtt_ms']:g} ms RTT, engine {p['engine']})")
EOF
)
cat <<EOF
Transport Lab client on the lab network: your traffic to the device is delayed as the runner's is.
  your directory   /work (read-write; ${CLIENT_WORKDIR:-?} on the host)
  device           sshpass -e ssh device "show version"   (user \$DEVICE_USERNAME, password
                   \$DEVICE_PASSWORD, also in \$SSHPASS) | https://device/ | NETCONF device:830
  WAN profile      $profile
  change it        python3 -c 'import httpx,os; httpx.put(os.environ["NETEM_URL"] + "/profile/continental")'
  clients          python3: asyncssh paramiko netmiko scrapli ncclient scrapli-netconf httpx requests;
                   ssh, sshpass
EOF
export PS1='lab-client:\w\$ '
exec bash --norc -i
