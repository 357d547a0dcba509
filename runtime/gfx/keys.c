/*
 * keys.c: LÖVE's key names (love.keyboard's KeyConstant list) beside SDL's (keys.h).
 *
 * Design note. SDL's names, lower-cased, stay the runtime's own: events carry them in `key` and
 * the keyboard snapshot is indexed by SDL scancode. A LÖVE name is another spelling of the same
 * key: the table pairs each LÖVE KeyConstant with SDL's scancode name where the two differ
 * ("lshift" and "left shift"), and lists the ones spelt alike so that the whole LÖVE list is
 * here, in the order of LÖVE's documentation (the README's table is this one). Fifteen LÖVE
 * constants are characters a US keyboard types with shift ("!", "@"): SDL names them as key
 * codes on layouts that have them unshifted, but no scancode carries them, so a query for one
 * is refused. The table is constant data: any thread reads it.
 */
#include "keys.h"

#include <string.h>

/* { LÖVE's name, SDL's name where it differs (NULL: the same), has no scancode of its own } */
static const ona__key_name names[] = {
    /* Character keys */
    {"a", NULL, false},
    {"b", NULL, false},
    {"c", NULL, false},
    {"d", NULL, false},
    {"e", NULL, false},
    {"f", NULL, false},
    {"g", NULL, false},
    {"h", NULL, false},
    {"i", NULL, false},
    {"j", NULL, false},
    {"k", NULL, false},
    {"l", NULL, false},
    {"m", NULL, false},
    {"n", NULL, false},
    {"o", NULL, false},
    {"p", NULL, false},
    {"q", NULL, false},
    {"r", NULL, false},
    {"s", NULL, false},
    {"t", NULL, false},
    {"u", NULL, false},
    {"v", NULL, false},
    {"w", NULL, false},
    {"x", NULL, false},
    {"y", NULL, false},
    {"z", NULL, false},
    {"0", NULL, false},
    {"1", NULL, false},
    {"2", NULL, false},
    {"3", NULL, false},
    {"4", NULL, false},
    {"5", NULL, false},
    {"6", NULL, false},
    {"7", NULL, false},
    {"8", NULL, false},
    {"9", NULL, false},
    {"space", NULL, false},
    {"!", NULL, true},
    {"\"", NULL, true},
    {"#", NULL, false},
    {"$", NULL, true},
    {"&", NULL, true},
    {"'", NULL, false},
    {"(", NULL, true},
    {")", NULL, true},
    {"*", NULL, true},
    {"+", NULL, true},
    {",", NULL, false},
    {"-", NULL, false},
    {".", NULL, false},
    {"/", NULL, false},
    {":", NULL, true},
    {";", NULL, false},
    {"<", NULL, true},
    {"=", NULL, false},
    {">", NULL, true},
    {"?", NULL, true},
    {"@", NULL, true},
    {"[", NULL, false},
    {"\\", NULL, false},
    {"]", NULL, false},
    {"^", NULL, true},
    {"_", NULL, true},
    {"`", NULL, false},
    /* Numpad keys */
    {"kp0", "keypad 0", false},
    {"kp1", "keypad 1", false},
    {"kp2", "keypad 2", false},
    {"kp3", "keypad 3", false},
    {"kp4", "keypad 4", false},
    {"kp5", "keypad 5", false},
    {"kp6", "keypad 6", false},
    {"kp7", "keypad 7", false},
    {"kp8", "keypad 8", false},
    {"kp9", "keypad 9", false},
    {"kp.", "keypad .", false},
    {"kp,", "keypad ,", false},
    {"kp/", "keypad /", false},
    {"kp*", "keypad *", false},
    {"kp-", "keypad -", false},
    {"kp+", "keypad +", false},
    {"kpenter", "keypad enter", false},
    {"kp=", "keypad =", false},
    /* Navigation keys */
    {"up", NULL, false},
    {"down", NULL, false},
    {"right", NULL, false},
    {"left", NULL, false},
    {"home", NULL, false},
    {"end", NULL, false},
    {"pageup", NULL, false},
    {"pagedown", NULL, false},
    /* Editing keys */
    {"insert", NULL, false},
    {"backspace", NULL, false},
    {"tab", NULL, false},
    {"clear", NULL, false},
    {"return", NULL, false},
    {"delete", NULL, false},
    /* Function keys */
    {"f1", NULL, false},
    {"f2", NULL, false},
    {"f3", NULL, false},
    {"f4", NULL, false},
    {"f5", NULL, false},
    {"f6", NULL, false},
    {"f7", NULL, false},
    {"f8", NULL, false},
    {"f9", NULL, false},
    {"f10", NULL, false},
    {"f11", NULL, false},
    {"f12", NULL, false},
    {"f13", NULL, false},
    {"f14", NULL, false},
    {"f15", NULL, false},
    {"f16", NULL, false},
    {"f17", NULL, false},
    {"f18", NULL, false},
    /* Modifier keys */
    {"numlock", NULL, false},
    {"capslock", NULL, false},
    {"scrolllock", NULL, false},
    {"rshift", "right shift", false},
    {"lshift", "left shift", false},
    {"rctrl", "right ctrl", false},
    {"lctrl", "left ctrl", false},
    {"ralt", "right alt", false},
    {"lalt", "left alt", false},
    {"rgui", "right gui", false},
    {"lgui", "left gui", false},
    {"mode", "modeswitch", false},
    /* Application keys */
    {"www", NULL, false},
    {"mail", NULL, false},
    {"calculator", NULL, false},
    {"computer", NULL, false},
    {"appsearch", "ac search", false},
    {"apphome", "ac home", false},
    {"appback", "ac back", false},
    {"appforward", "ac forward", false},
    {"apprefresh", "ac refresh", false},
    {"appbookmarks", "ac bookmarks", false},
    /* Miscellaneous keys */
    {"pause", NULL, false},
    {"escape", NULL, false},
    {"help", NULL, false},
    {"printscreen", NULL, false},
    {"sysreq", NULL, false},
    {"menu", NULL, false},
    {"application", NULL, false},
    {"power", NULL, false},
    {"currencyunit", NULL, false},
    {"undo", NULL, false},
};

const ona__key_name *ona__keys_table(uint32_t *count) {
    *count = (uint32_t)(sizeof names / sizeof names[0]);
    return names;
}

const char *ona__keys_from_love(const char *name) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sdl && strcmp(names[i].love, name) == 0)
            return names[i].sdl;
    return NULL;
}

const char *ona__keys_love_name(const char *name) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sdl && strcmp(names[i].sdl, name) == 0)
            return names[i].love;
    return name;
}

bool ona__keys_is_character_only(const char *name) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].no_scancode && strcmp(names[i].love, name) == 0)
            return true;
    return false;
}

const char *ona_key_love_name(const char *name) {
    return name ? ona__keys_love_name(name) : NULL;
}
