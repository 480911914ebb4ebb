//! What counts as the same name or address, and which ones are accepted. One rule, used by
//! sign-up and sign-in alike: before, sign-up counted characters and sign-in bytes, so a
//! 20-letter Cyrillic name could sign up and never sign in.
//!
//! Unicode's security mechanisms come from the `unicode-security` crate (UTS #39), not from
//! tables of our own: a username's characters must be allowed in identifiers by the General
//! Security Profile (which refuses the invisible Hangul fillers and other default-ignorable,
//! obsolete or deprecated characters), be of one script, and names whose [`skeleton`]s are
//! equal (`јеѕѕісароре92` in Cyrillic, `jessicapope92` in Latin) are one name to the sites that
//! claim it. Free text refuses bidirectional overrides and values that show nothing
//! ([`check_free_text`], UTS #55's concerns).

use unicode_normalization::UnicodeNormalization;
use unicode_security::{GeneralSecurityProfile, MixedScript};

/// A name as it is compared and claimed: NFKC (so `ＤＥＭＯ` is `DEMO`), case-folded, NFKC
/// again (folding can denormalize).
pub fn fold(name: &str) -> String {
    name.trim()
        .nfkc()
        .collect::<String>()
        .to_lowercase()
        .nfkc()
        .collect()
}

/// UTS #39's skeleton of the [`fold`]ed name: names that look alike share it (`јеѕѕісароре92`
/// in Cyrillic and `jessicapope92` in Latin, `rn` and `m`); default-ignorable characters
/// (zero-width spaces, the Hangul fillers) are dropped from it.
pub fn skeleton(name: &str) -> String {
    unicode_security::skeleton(&fold(name)).collect()
}

/// Usernames: 3 to 30 characters, letters (of one script), digits, `_`, `-` or `.`.
pub const USERNAME_RULE: &str = "must be 3 to 30 letters of one alphabet, digits, '_', '-' or '.'";

/// Err(message) when `name` (trimmed) is not a valid username. Mixed scripts are refused:
/// `dеmo` with a Cyrillic `е` would otherwise sit beside `demo`; so are characters UTS #39's
/// General Security Profile restricts (checked on the NFKC form, so that full-width `ＤＥＭＯ`
/// is `demo`), and names without a letter or digit (`...`, `___`).
pub fn check_username(name: &str) -> Result<(), &'static str> {
    let n = name.trim();
    let count = n.chars().count();
    if !(3..=30).contains(&count) || !n.chars().all(|c| c.is_alphanumeric() || "_-.".contains(c)) {
        return Err(USERNAME_RULE);
    }
    if !fold(n)
        .chars()
        .all(GeneralSecurityProfile::identifier_allowed)
    {
        return Err("contains characters not allowed in names (invisible, obsolete or unusual)");
    }
    if !n.chars().any(char::is_alphanumeric) {
        return Err("must contain a letter or a digit");
    }
    if !n.is_single_script() {
        return Err("mixes letters of different alphabets");
    }
    Ok(())
}

/// Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): they
/// reorder the text after them ("Trojan source", a name that reads backwards). The three
/// invisible direction marks (U+200E, U+200F, U+061C), which reorder nothing beyond
/// themselves, stay allowed for right-to-left writing.
fn is_bidi_override(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Err(message) for free text (names, titles, comments, posts) that carries bidirectional
/// overrides, or that shows nothing: only spaces and default-ignorable characters (a lone
/// zero-width space, a Hangul filler), which the [`skeleton`] drops.
pub fn check_free_text(text: &str) -> Result<(), &'static str> {
    if text.chars().any(is_bidi_override) {
        return Err("contains bidirectional control characters");
    }
    if unicode_security::skeleton(text).all(char::is_whitespace) {
        return Err("is required (invisible characters only)");
    }
    Ok(())
}

/// Email addresses: at most 254 characters, a local part of letters, digits and `._%+-`, a
/// domain of dot-separated labels of letters, digits and `-`. Stricter than RFC 5321 on
/// purpose: what reaches the engine as part of an id must be plain (no `#`, `/`, `<>`).
pub fn check_email(email: &str) -> Result<(), &'static str> {
    const RULE: &str = "is not an email address like name@example.com";
    let e = email.trim();
    if e.chars().count() > 254 {
        return Err("must be at most 254 characters");
    }
    let Some((local, domain)) = e.split_once('@') else {
        return Err(RULE);
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._%+-".contains(c));
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        && labels
            .last()
            .is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()));
    if local_ok && domain_ok {
        Ok(())
    } else {
        Err(RULE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_fold_to_one_name_or_are_refused() {
        assert_eq!(fold("ＤＥＭＯ"), "demo");
        assert_eq!(fold("  Demo "), "demo");
        assert_eq!(fold("ǅemo"), fold("džemo"));
        assert!(
            check_username("dеmo").is_err(),
            "Cyrillic е among Latin letters"
        );
        assert!(check_username("demo").is_ok());
        assert!(check_username("дмитрий_петров_иванович").is_ok());
        assert!(check_username("ab").is_err());
        assert!(check_username(&"ж".repeat(30)).is_ok());
        assert!(check_username(&"ж".repeat(31)).is_err());
        assert!(check_username("a/b").is_err());
        assert!(check_username("a.b_c-d").is_ok());
    }

    #[test]
    fn invisible_and_punctuation_only_names_are_refused() {
        for filler in ['\u{3164}', '\u{FFA0}', '\u{115F}'] {
            let name = filler.to_string().repeat(3);
            assert!(check_username(&name).is_err(), "{:?}", name);
            assert!(check_username(&format!("ann{filler}")).is_err());
        }
        for bad in ["...", "___", "-_.", "a\u{200B}b"] {
            assert!(check_username(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn whole_script_look_alikes_share_a_skeleton() {
        let cyrillic = "јеѕѕісароре92";
        assert!(check_username(cyrillic).is_ok(), "one script");
        assert_ne!(fold(cyrillic), fold("jessicapope92"));
        assert_eq!(skeleton(cyrillic), skeleton("jessicapope92"));
        assert_eq!(skeleton("JessicaPope92"), skeleton("jessicapope92"));
        assert_ne!(skeleton("jessicapope92"), skeleton("jessicapope93"));
    }

    #[test]
    fn free_text_refuses_overrides_and_invisible_values() {
        assert!(check_free_text("Hello").is_ok());
        assert!(
            check_free_text("שלום \u{200F}world").is_ok(),
            "a direction mark"
        );
        assert!(check_free_text("evil\u{202E}gpj.exe").is_err());
        assert!(check_free_text("x\u{2066}y").is_err());
        for invisible in [
            "\u{200B}",
            "\u{3164}\u{3164}",
            "\u{200B} \u{FEFF}",
            "\u{115F}",
        ] {
            assert!(check_free_text(invisible).is_err(), "{invisible:?}");
        }
    }

    #[test]
    fn emails_that_would_reach_the_engine_as_odd_ids_are_refused() {
        assert!(check_email("ann@example.com").is_ok());
        assert!(check_email("a.b+shop@mail.example.co").is_ok());
        for bad in [
            "a#b@example.com",
            "<>@x.y",
            "a@b",
            "a@@b.com",
            "a b@c.com",
            "a/b@c.com",
            ".a@c.com",
            "a@-c.com",
            "a@c.c0m",
        ] {
            assert!(check_email(bad).is_err(), "{bad}");
        }
        let long = format!("{}@example.com", "a".repeat(200));
        assert!(check_email(&long).is_err());
    }
}
