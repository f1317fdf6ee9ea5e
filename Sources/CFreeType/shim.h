// FreeType: anti-aliased glyphs for contact sheets and charts.
#include <ft2build.h>
#include FT_FREETYPE_H

// FT_HAS_KERNING is a macro Swift cannot import.
static inline int scrub_ft_has_kerning(FT_Face face) { return FT_HAS_KERNING(face) ? 1 : 0; }
