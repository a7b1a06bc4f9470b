"""One application's own configuration under ``/etc`` (``/etc/slurm/slurm.conf``,
``/etc/prometheus/rules/x.yml``, ``/etc/alertmanager/alertmanager.yml``): an operator agent
edits these every day. They count as a system configuration file a person confirms (HIGH),
not one that is refused outright: what is changed is one program's behaviour, not who may log
in, what runs at start-up or on a schedule, or what the machine trusts.

Folders that decide those stay CRITICAL under the generic ``/etc`` rule (or their own rule
before it): anything that starts programs (cron, systemd, init, supervisors, udev, network
hooks, package-manager hooks, cloud-init, logrotate scripts, ``skel``), logs in or elevates
(SSH, PAM, sudo, polkit, Kerberos, LDAP, SSSD), decides trust (certificates, package sources,
the loader, kernel modules and parameters, SELinux and AppArmor, audit and syslog, firewalls),
serves the web (web servers and proxies), or runs containers and clusters — and, inside any
application's folder, the files that decide who logs in to it (``pg_hba.conf``, a password
file, a keytab). Files directly in
``/etc`` (``fstab``, ``resolv.conf``, ``environment``) keep the generic rule too.
"""

from __future__ import annotations

__all__ = ["APP_CONFIG"]

_KEPT = (
    r"ssh|ssl|pki|tls|security|sudo[^/]*|doas[^/]*|pam\.d|polkit-1|dbus-1|krb5[^/]*|ldap|openldap"
    r"|sssd|systemd|init|init\.d|rc[^/]*|cron[^/]*|anacron[^/]*|logrotate[^/]*|supervisor[^/]*"
    r"|monit[^/]*|xinetd\.d|inetd[^/]*|udev|networkd-dispatcher|network|networkmanager|netplan"
    r"|wireguard|openvpn|ppp|dhcp|apt|yum[^/]*|dnf|zypp|pacman[^/]*|portage|apk|ld\.so[^/]*"
    r"|modprobe\.d|modules-load\.d|modules|sysctl\.d|kernel|default|grub[^/]*|initramfs-tools"
    r"|dracut[^/]*|selinux|apparmor[^/]*|audit|audisp|rsyslog[^/]*|syslog[^/]*|journald[^/]*"
    r"|ufw|iptables|nftables[^/]*|firewalld|fail2ban|docker|containerd|containers|crio|kubernetes"
    r"|rancher|cni|profile\.d|bash[^/]*|zsh|fish|skel|environment\.d|xdg|x11|update-motd\.d"
    r"|cloud|ca-certificates|letsencrypt|vault[^/]*|git[^/]*|php[^/]*|telegraf[^/]*|shadow[^/]*"
    r"|passwd[^/]*|group[^/]*|gshadow[^/]*|alternatives|binfmt\.d|tmpfiles\.d|sudoers\.d"
    r"|nginx|apache2?|httpd|caddy|haproxy|traefik|lighttpd|envoy|squid"
)
_WHO_LOGS_IN = (
    r"pg_hba\.conf|pg_ident\.conf|\.htpasswd|htpasswd|users\.acl|[^/]*\.keytab|nsswitch\.conf"
)
"""Files inside an application's folder that decide who logs in to it (PostgreSQL's
``pg_hba.conf``, a password file, a keytab): they keep the CRITICAL rule too."""
APP_CONFIG = (
    rf"^/etc/(?!(?:{_KEPT})/)[a-z0-9][\w.+-]{{0,60}}/(?![^\x00]{{0,200}}/?(?:{_WHO_LOGS_IN})$)"
    rf"[^\x00]{{1,300}}$"
)
"""A file inside one application's folder of ``/etc`` that is none of the kept folders and
does not decide who logs in."""
