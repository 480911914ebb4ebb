//! Checks of form fields, with messages that name the field, collected so a form is re-shown
//! with every problem at once.

/// Field → message, in the order found.
#[derive(Debug, Default, Clone)]
pub struct FieldErrors(pub Vec<(&'static str, String)>);

impl FieldErrors {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn add(&mut self, field: &'static str, message: impl Into<String>) {
        self.0.push((field, message.into()));
    }

    /// The message for `field`, for the template ("" when none).
    pub fn get(&self, field: &str) -> &str {
        self.0
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, m)| m.as_str())
            .unwrap_or("")
    }

    /// A trimmed, non-empty value of at most `max` characters, without control characters or
    /// bidirectional overrides, that shows something ([`crate::accounts::names::check_free_text`]).
    pub fn text(&mut self, field: &'static str, value: &str, max: usize) -> String {
        let v = value.trim();
        if v.is_empty() {
            self.add(field, "is required");
        } else if v.chars().count() > max {
            self.add(field, format!("must be at most {max} characters"));
        } else if v
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\r' && c != '\t')
        {
            self.add(field, "contains control characters");
        } else if let Err(m) = crate::accounts::names::check_free_text(v) {
            self.add(field, m);
        }
        v.to_owned()
    }

    /// An optional value: empty is fine, else as [`text`](Self::text).
    pub fn optional(&mut self, field: &'static str, value: &str, max: usize) -> String {
        if value.trim().is_empty() {
            String::new()
        } else {
            self.text(field, value, max)
        }
    }

    /// An email address, lower-cased (addresses are compared case-insensitively), by the one
    /// rule sign-in uses too ([`crate::accounts::names::check_email`]).
    pub fn email(&mut self, field: &'static str, value: &str) -> String {
        let v = self.text(field, value, 254).to_lowercase();
        if !v.is_empty() {
            if let Err(m) = crate::accounts::names::check_email(&v) {
                self.add(field, m);
            }
        }
        v
    }

    /// A username, by the one rule sign-in uses too ([`crate::accounts::names::check_username`]).
    pub fn username(&mut self, field: &'static str, value: &str) -> String {
        let v = value.trim().to_owned();
        if v.is_empty() {
            self.add(field, "is required");
        } else if let Err(m) = crate::accounts::names::check_username(&v) {
            self.add(field, m);
        }
        v
    }

    /// A password: 8 to 128 characters (the upper bound keeps hashing cheap to refuse).
    pub fn new_password(&mut self, field: &'static str, value: &str) {
        let n = value.chars().count();
        if n < 8 {
            self.add(field, "must be at least 8 characters");
        } else if n > 128 {
            self.add(field, "must be at most 128 characters");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_checked_with_named_messages() {
        let mut e = FieldErrors::default();
        assert_eq!(e.email("email", "  Ann@Example.COM "), "ann@example.com");
        assert!(e.is_empty());
        e.email("email", "not-an-email");
        e.text("name", "   ", 10);
        e.text("city", "x".repeat(11).as_str(), 10);
        e.new_password("password", "short");
        assert_eq!(
            e.get("email"),
            "is not an email address like name@example.com"
        );
        assert_eq!(e.get("name"), "is required");
        assert_eq!(e.get("city"), "must be at most 10 characters");
        assert_eq!(e.get("password"), "must be at least 8 characters");
        assert_eq!(e.get("other"), "");
    }
}
