"""The job's devices as each tool's inventory. Pure: plain dictionaries, no tool imported.

Credentials never appear here: Nornir is given them in memory (nornir_job.py); Ansible's
inventory names the variables its playbooks prompt for (``vars_prompt``), which ansible-runner
answers from memory (ansible_job.py), so the inventory file Ansible needs on disk holds no
secret.
"""

from typing import Any

from fleet_tools.protocol import Host, Job

PLATFORM_NAMES: dict[str, dict[str, str]] = {
    "cisco_iosxe": {"netmiko": "cisco_ios", "scrapli": "cisco_iosxe", "ansible": "cisco.ios.ios"},
    "arista_eos": {"netmiko": "arista_eos", "scrapli": "arista_eos", "ansible": "arista.eos.eos"},
}
"""The lab platform's name in netmiko, scrapli and Ansible (network_os)."""

ANSIBLE_GROUP = "fleet"
USERNAME_VAR = "fleet_username"
PASSWORD_VAR = "fleet_password"
"""The variables every playbook prompts for (its ``vars_prompt``)."""
"""The inventory group every playbook runs on."""

SCRAPLI_TRANSPORT = "system"
"""scrapli's default transport, the one operators get without choosing: the OpenSSH client
(``ssh``, in the image for the runner's own OpenSSH modes) on a pty. It works against the lab;
paramiko would be a second, less used, path through a library the runner already measures."""


def nornir_hosts(job: Job) -> dict[str, dict[str, Any]]:
    """Per device, the arguments of nornir's ``Host``: address, port, platform and each
    connection plugin's options (netmiko, scrapli, ncclient), timeouts from the job."""
    timeout = job.timeout_s
    hosts: dict[str, dict[str, Any]] = {}
    for host in job.hosts:
        names = PLATFORM_NAMES[host.platform]
        hosts[host.name] = {
            "hostname": host.host,
            "port": host.ssh_port,
            "platform": names["netmiko"],
            "data": {"lab_platform": host.platform, "https_port": host.https_port},
            "connection_options": {
                "netmiko": {
                    "platform": names["netmiko"],
                    "extras": {
                        "conn_timeout": timeout,
                        "auth_timeout": timeout,
                        "banner_timeout": timeout,
                        # The job gives no keys: never try an agent's or ~/.ssh's.
                        "allow_agent": False,
                        "use_keys": False,
                    },
                },
                "scrapli": {
                    "platform": names["scrapli"],
                    "extras": {
                        "transport": SCRAPLI_TRANSPORT,
                        # The lab's host keys are generated per container: not checked, as
                        # the job's Ansible runs do not check them either.
                        "auth_strict_key": False,
                        "timeout_socket": timeout,
                        "timeout_transport": timeout,
                        "timeout_ops": timeout,
                    },
                },
                "ncclient": {
                    "port": host.netconf_port,
                    "extras": {"timeout": timeout},
                },
            },
        }
    return hosts


def _ansible_host(host: Host, job: Job) -> dict[str, Any]:
    variables: dict[str, Any] = {
        "ansible_host": host.host,
        "ansible_network_os": PLATFORM_NAMES[host.platform]["ansible"],
        "lab_https_port": host.https_port,
    }
    if job.connection == "network_cli":
        variables["ansible_port"] = host.ssh_port
    elif job.connection == "netconf":
        variables["ansible_port"] = host.netconf_port
    return variables


def ansible_inventory(job: Job) -> dict[str, Any]:
    """An Ansible inventory (YAML's structure; written as JSON, which YAML reads): the group
    ``fleet``, its connection, and the credentials as the playbook's prompted variables."""
    group_vars: dict[str, Any] = {
        "ansible_user": "{{ " + USERNAME_VAR + " }}",
        "ansible_password": "{{ " + PASSWORD_VAR + " }}",
        # Modules that run on the controller (uri) use this environment's Python.
        "ansible_python_interpreter": "{{ ansible_playbook_python }}",
    }
    if job.connection == "network_cli":
        group_vars["ansible_connection"] = "ansible.netcommon.network_cli"
        group_vars["ansible_network_cli_ssh_type"] = job.ssh_type
    elif job.connection == "netconf":
        group_vars["ansible_connection"] = "ansible.netcommon.netconf"
    else:
        # uri talks HTTPS from the controller: the host's address is only the URL's.
        group_vars["ansible_connection"] = "local"
    return {
        "all": {
            "children": {
                ANSIBLE_GROUP: {
                    "hosts": {host.name: _ansible_host(host, job) for host in job.hosts},
                    "vars": group_vars,
                }
            }
        }
    }
