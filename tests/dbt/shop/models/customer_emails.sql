select id, lower(email) as email from {{ ref('stg_customers') }}
