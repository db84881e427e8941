# Login profile of the virtual board's console shell.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
# The serial console has no size: without this, programs that format for the terminal wrap at 80 columns.
stty cols 4096 rows 64 2>/dev/null
PS1='hil-vlab# '
cd /root 2>/dev/null || cd /
