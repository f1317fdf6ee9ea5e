// fontconfig: finding the default font (DejaVu Sans) and fonts for characters it lacks.
#include <fontconfig/fontconfig.h>
