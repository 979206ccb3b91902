"""Files, whatever they hold: read safely (`reading`: regular files only, non-blocking, size-capped,
one line per refusal) and written safely (`writing`: atomic replacement never wider than its
source, private directories and umask, a full disk told apart). The bottom layer: imports nothing
from the other packages."""
