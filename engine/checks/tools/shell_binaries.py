"""Which programs do what, for the shell rules: network clients, decoders, privilege
launchers, programs whose arguments are data, launchers that start a shell when given no
command, and the binaries of the GTFOBins catalogue."""

from __future__ import annotations

from .shell_catalogue import words

__all__ = [
    "DATABASE_DUMPS",
    "DECODERS",
    "DOWNLOADERS",
    "NET_TOOLS",
    "PASSIVE",
    "PRIVILEGED",
    "RAW_NET",
    "SHELL_TUIS",
    "SHELL_VERBS",
    "SHELL_WHEN_EMPTY",
    "SYSTEM_BINARIES",
    "TRANSPARENT",
    "TYPED_INTO",
    "TYPED_KEYS",
]


NET_TOOLS = words(
    """
    curl wget fetch nc ncat socat telnet openssl aria2c ftp tftp lftp smbclient http https
    xh lwp-download lwp-request GET POST whois finger ssh scp sftp rsync busybox powershell
    pwsh irm invoke-restmethod certutil bitsadmin axel httpie links lynx w3m elinks sshpass
    cryptcat pwncat ncftp psftp dig nslookup host gsutil aws gcloud az rclone s3cmd git
    """
)


DOWNLOADERS = words(
    """
    curl wget fetch aria2c lwp-download lwp-request GET http https xh httpie axel irm
    invoke-restmethod certutil bitsadmin tftp ftp lftp links lynx w3m elinks
    """
)


DATABASE_DUMPS = words(
    """
    mysqldump mariadb-dump pg_dump pg_dumpall mongodump mongoexport redis-cli sqlite3
    cockroach influxd etcdctl
    """
)
"""Programs whose output is a database's content."""


RAW_NET = words(
    """
    nc ncat socat telnet cryptcat pwncat openssl
    """
)


DECODERS = words(
    """
    base64 base32 basenc base58 xxd openssl uudecode gunzip zcat gzip bzip2 bunzip2 bzcat xz
    unxz xzcat zstd unzstd rev tr od printf ascii85 certutil python perl ruby php node lzma
    brotli uncompress lz4 sed awk cut iconv basez
    """
)
"""Programs that can turn an encoded or compressed payload into runnable text."""


PRIVILEGED = words(
    """
    sudo doas su runuser pkexec sg run0
    """
)


PASSIVE = words(
    """
    echo printf ls stat file which whereis type hash readlink realpath test [ grep egrep
    fgrep rg ag ack git apt apt-get apt-cache yum dnf brew pacman apk pip npm pnpm gem cargo
    go conda dpkg ldd sha256sum sha1sum md5sum sha512sum wc head tail diff cmp strings
    objdump nm readelf cp mv ln chmod chown chgrp chsh usermod useradd adduser install mkdir
    touch basename dirname sort uniq tr cut tee docker kubectl ssh export unset local
    declare readonly alias jq yq shellcheck shfmt update-alternatives systemctl journalctl
    read cat less more man help info whatis apropos du df rm shred vim nano code cd pushd
    chattr lsattr getfacl setfacl awk sed find tar zip unzip xargs dockerd helm kind
    minikube gh glab dotnet mvn gradle bazel make cmake ninja curl wget scp rsync ps pgrep
    pkill kill killall lsof id whoami groups getent compgen complete bind set shopt sleep
    true false : wait jobs fg bg disown printenv
    """
)
"""Programs whose arguments name files or text rather than run them: a shell path among
their arguments is data (``chsh -s /bin/zsh``, ``docker run -it img bash``); their own
escape options are read through ``COMMAND_OPTIONS`` and the rules."""


SHELL_WHEN_EMPTY = words(
    """
    script sg su capsh nsenter unshare chroot firejail setarch linux32 linux64 screen tmux
    tmate newgrp runuser busybox systemd-run pkexec ssh-agent sshpass run0
    """
)
"""Launchers that start an interactive shell when given no command (``script -q /dev/null``,
``sg $(id -ng)``, ``capsh --``, ``nsenter``)."""


TRANSPARENT = frozenset({"exec", "command", "builtin", "nocorrect", "eval", "sh -c"})
"""Wrappers that are the shell's own plumbing: a shell reached only through them is the
agent's shell, not an escape through another program."""


SYSTEM_BINARIES = words(
    """
    7z aa-exec ab acr agetty alpine ansible-playbook ansible-test aoss apache2ctl apport-cli
    apt apt-get aptitude ar aria2c arj arp ascii-xfr ascii85 ash aspell asterisk at atobm
    awk base32 base58 base64 basenc basez bash bashbug batcat bc bconsole bee bpftrace
    bridge busctl busybox byebug bzip2 cabal cancel capsh cat cdist certbot chattr
    check_by_ssh check_cups check_log check_memory check_raid check_ssl_cert
    check_statusfile chmod choom chown chroot chrt clamscan clisp cmake cmp cobc column comm
    cowsay cowthink cp cpan cpio cpulimit crash crontab csh csplit csvtool ctr cupsfilter
    cut dash dc dd debugfs dhclient dialog diff dig distcc dmesg dmidecode dmsetup dnf
    dnsmasq doas dos2unix dosbox dotnet dpkg dstat dvips easy_install eb ed efax elvish
    emacs enscript env eqn espeak ex exiftool expand expect facter fail2ban-client file find
    finger firejail fish flock fmt fold fping ftp fzf gawk gcore gdb gem genie genisoimage
    getent ghc ghci gimp ginsh gnuplot grc grep gtester guile gzip hd head hexdump hg
    highlight hping3 iconv iftop ionice ip irb ispell jjs joe join journalctl jq jrunscript
    jshell jtag knife ksh ksshell ksu last lastb latex latexmk ld.so ldconfig less
    lessfilter lesspipe lftp links ln loginctl logrotate logsave look lp ltrace lualatex
    luatex lwp-download lwp-request m4 mail man mawk minicom more mosh-server mount
    msfconsole msgattrib msgcat msgconv msgfilter msgmerge msguniq mtr multitime mutt mv
    mysql nano nawk nc ncdu ncftp neofetch nft nice nl nm nmap nohup nroff nsenter ntpdate
    nvim octave od openssl openvpn openvt opkg pandoc passwd paste pax pdb pdflatex pdftex
    perf perlbug pexec pg pic pico pidstat pkexec pkg plymouth posh pr procmail pry psftp
    psql ptx puppet pwsh pygmentize qpdf r rake rc readelf red redcarpet rev rlogin rlwrap
    rpm rpmdb rpmquery rpmverify rsync rsyslogd rtorrent run-mailcap run-parts runscript
    rview rvim sash scanmem scp screen script scrot sed service setarch setcap setfacl
    setlock sftp sg shred shuf slsh smbclient socat socket soelim softlimit sort split
    sqlite3 sqlmap ss ssh ssh-agent ssh-copy-id ssh-keygen ssh-keyscan sshfs sshpass
    sshuttle start-stop-daemon stdbuf strace strings su sudo svn sysctl systemctl
    systemd-resolve systemd-run tac tail tar taskset tasksh tbl tclsh tcpdump tcsh tdbtool
    tee telnet tex tftp tic timedatectl timeout tmate tmux top torify torsocks troff tshark
    ul unexpand uniq unshare unsquashfs unzip update-alternatives urlget uudecode uuencode
    valgrind varnishncsa vi view vigr vim vimdiff vipw virsh volatility w3m wall watch wc
    wg-quick whiptail whois wireshark wish xargs xdg-user-dir xdotool xelatex xetex xmodmap
    xmore xpad xxd xz yash yelp yt-dlp yum zathura zcat zic zip zless zsh zsoelim zypper
    b2sum basename chcon cksum comm csplit date dircolors dirname du echo expr factor
    false fmt groups hostid id logname ls md5sum mkdir mkfifo mknod mktemp nproc numfmt
    pathchk pinky printenv printf pwd readlink realpath rm rmdir runcon seq sha1sum
    sha224sum sha256sum sha384sum sha512sum sleep stat stty sum touch tr
    truncate tsort tty uname unlink users vdir who whoami yes as ld nasm objcopy objdump
    gcc cc curl wget restic mosquitto busctl
    """
)
"""Binaries the GTFOBins catalogue lists as able to escape, read, write or keep root when
set-uid or run by sudo, and the standard system tools (coreutils, binutils, common clients)
that do the same through their ordinary options; a copy of one run from the working or a
temporary folder (`./find`, `/tmp/awk`) is the catalogue's set-uid backdoor pattern.
Common project-local binaries (`./kubectl`, `./terraform`, `./node`, `./go`, `./python`)
are left out."""


TYPED_INTO = words(
    """
    irb pry jshell tclsh wish cpan ghci python perl ruby node php lua jjs gdb ftp sftp ed
    red mysql psql sqlite3 less more man vi vim nano pico emacs nmap msfconsole telnet crash
    debugfs bconsole scanmem jtag tasksh tdbtool psftp ncftp lftp smbclient volatility
    dotnet R octave pdb byebug cpan journalctl systemctl git apt-get apt dmesg busctl iftop
    ispell timedatectl loginctl zathura joe hping3 pg batcat aws gcloud eb run-mailcap dpkg
    mail ginsh asterisk zic nc socat terraform ex view rview rvim vimdiff sftp tftp ksshell
    """
)
"""Programs a GTFOBins recipe types into: the lines after them are their input."""


TYPED_KEYS: dict[str, dict[str, str]] = {
    "ncdu": {"b": "shell"},
    "ranger": {"S": "shell", "!": "shell"},
    "nnn": {"!": "shell"},
    "vifm": {"S": "shell"},
    "less": {"s": "write", "o": "write", "v": "editor", "E": "read", ":e": "read"},
    "more": {"v": "editor"},
    "man": {"s": "write", "v": "editor"},
    "zless": {"s": "write", "v": "editor"},
    "aptitude": {"!": "shell"},
    "tig": {"!": "shell"},
}
"""Keys that interactive programs act on when typed alone on a line: ``shell`` opens a shell
(ncdu's ``b``), ``editor`` opens ``$EDITOR`` (a shell is one ``:!sh`` away), ``write``/
``read`` save the text shown to, or open, the file named after the key (less's ``s FILE``)."""


SHELL_TUIS = words(
    """
    minicom wireshark apport-cli apport-bug ubuntu-bug ranger nnn vifm aptitude
    """
)
"""Full-screen programs with a built-in way to run shell commands or an editor (a menu
entry, a key, a script console): started from a tool call, only a keystroke escape can
drive them."""


SHELL_VERBS: dict[str, frozenset[str]] = {
    "ansible-test": frozenset({"shell"}),
    "poetry": frozenset({"shell"}),
    "pipenv": frozenset({"shell"}),
    "hatch": frozenset({"shell"}),
    "pdm": frozenset({"shell"}),
    "guix": frozenset({"shell"}),
    "nix": frozenset({"shell", "develop"}),
    "devbox": frozenset({"shell"}),
    "machinectl": frozenset({"shell", "login"}),
    "toolbox": frozenset({"enter"}),
    "distrobox": frozenset({"enter"}),
    "flox": frozenset({"activate"}),
}
"""Programs whose subcommand, given no command to run, opens an interactive shell."""
