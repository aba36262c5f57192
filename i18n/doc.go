// Package i18n is RAMBar's message catalog: the words a person reads in the
// menu and its windows, in English (the source), German, Spanish, French,
// Japanese and Simplified Chinese, with plurals and numbers by each
// language's rules (golang.org/x/text's message and catalog packages, CLDR
// data), and a pseudo-locale (en-XA: accented and 40% longer) that shows in
// tests and screenshots any text that skipped the catalog or was cut.
//
// Messages are keyed by their English text, as gotext keys them. Each
// language is one JSON file in locales/ (embedded): the English text, and
// either its translation or, for a message that counts something, its
// plural forms by CLDR category ("one", "other", …) for the argument named
// by "arg". en.json lists every message; the tests check that every
// message has every language, that each translation has the same format
// verbs as its source, and that every message the code asks for (a literal
// passed to T) is in en.json.
//
// The language is resolved once per process: on Linux from LANGUAGE,
// LC_ALL, LC_MESSAGES and LANG, in that order (FromEnv); on macOS from the
// user's preferred languages (NSLocale preferredLanguages, which honours a
// per-app choice in System Settings), or AppleLanguages as `defaults`
// reads it (ParseAppleLanguages). Match picks the first supported one.
//
// What is not yet through the catalog: the CLI's messages, help and errors
// (and the shared ramdisk words they print: plans, ages, sizes in tables);
// --json output, file formats and logs stay English by design.
package i18n
