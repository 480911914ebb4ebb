//! Sign-in by username without a fan-out: the name's claim document (see `c1_user`) is a point
//! read, then the user it names another.

use super::c1_user::claim_key;
use super::{DbOf, Result, UsersContainer};
use crate::model::{User, UsernameClaim};

pub async fn user_by_username<C: UsersContainer>(
    db: &DbOf<C>,
    username: &str,
) -> Result<Option<User>> {
    let key = claim_key(username);
    let claim = match db
        .users()
        .read_item::<UsernameClaim>(&key, key.as_str(), None)
        .await
    {
        Ok(r) => {
            db.ru.item("read username claim", db.users(), &r);
            r.resource
        }
        Err(engine::Error::NotFound { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    match claim {
        Some(c) => super::q1_user::find_user(db, &c.owner_id).await,
        None => Ok(None),
    }
}
