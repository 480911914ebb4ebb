//! [Q1] Retrieve a user: a point read in `users` (1 RU in the article).

use super::{DbOf, Result, UsersContainer};
use crate::model::User;
use cosmos::Labelled;

pub async fn find_user<C: UsersContainer>(db: &DbOf<C>, user_id: &str) -> Result<Option<User>> {
    match db
        .users()
        .read_item::<User>(user_id, user_id, None)
        .labelled("[Q1] read user")
        .await
    {
        Ok(r) => Ok(r.resource.filter(|u| u.kind == "user")),
        Err(cosmos::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

pub async fn user<C: UsersContainer>(db: &DbOf<C>, user_id: &str) -> Result<User> {
    find_user(db, user_id).await?.ok_or_else(|| {
        cosmos::Error::NotFound {
            what: format!("user {user_id}"),
        }
        .into()
    })
}
