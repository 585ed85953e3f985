-- three customers, one of them without an email: the not_null test on email fails
select 1 as id, 'ann@example.com' as email, 'north' as region
union all select 2, null, 'south'
union all select 3, 'cy@example.com', 'north'
