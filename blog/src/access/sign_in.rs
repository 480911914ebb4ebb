//! Sign-in by username without a fan-out: the name's claim document (see `c1_user`) is a point
//! read, then the user it names another.

use super::c1_user::USERNAME;
use super::{DbOf, Result, UsersContainer};
use crate::model::User;

pub async fn user_by_username<C: UsersContainer>(
    db: &DbOf<C>,
    username: &str,
) -> Result<Option<User>> {
    let Some(owner) = USERNAME.owner_of(db.users(), username).await? else {
        return Ok(None);
    };
    let user = super::q1_user::find_user(db, &owner).await?;
    // A claim whose user was never written, or a rename not finished (or lost).
    let folded = sitekit::accounts::names::fold(username);
    Ok(user.filter(|u| sitekit::accounts::names::fold(&u.username) == folded))
}
