//! What counts as the same name or address, and which ones are accepted. One rule, used by
//! sign-up and sign-in alike: before, sign-up counted characters and sign-in bytes, so a
//! 20-letter Cyrillic name could sign up and never sign in.

use unicode_normalization::UnicodeNormalization;
use unicode_security::MixedScript;

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

/// Usernames: 3 to 30 characters, letters (of one script), digits, `_`, `-` or `.`.
pub const USERNAME_RULE: &str = "must be 3 to 30 letters of one alphabet, digits, '_', '-' or '.'";

/// Err(message) when `name` (trimmed) is not a valid username. Mixed scripts are refused:
/// `dеmo` with a Cyrillic `е` would otherwise sit beside `demo`.
pub fn check_username(name: &str) -> Result<(), &'static str> {
    let n = name.trim();
    let count = n.chars().count();
    if !(3..=30).contains(&count) || !n.chars().all(|c| c.is_alphanumeric() || "_-.".contains(c)) {
        return Err(USERNAME_RULE);
    }
    if !n.is_single_script() {
        return Err("mixes letters of different alphabets");
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
