select region, count(*) as customers from {{ ref('stg_customers') }} group by region
